"""``arena bundle``: a stored match in a folder, and that folder's match played again."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from referee.textlog import printable

from ..bundle import BundleError, check_images, first_difference, load_bundle, rerun, write_bundle
from .options import user_errors, with_store


@click.group()
def bundle() -> None:
    """Match bundles: a stored match, to be played again elsewhere and compared."""


@bundle.command("match")
@click.argument("match_id", type=int)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="The bundle's folder, which must not exist  [default: bundle-MATCH_ID]")
@with_store(create=False)
@user_errors
def bundle_match(match_id: int, out: Path | None, store) -> None:
    """Write match MATCH_ID's bundle: its spec, records, every seat's views and a run script.

    Refused for a match whose duplicate cycle is not all stored: its deal secret deals the
    cycle's other matches too."""
    try:
        written = write_bundle(store, match_id, out)
    except BundleError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{written.path}: match {written.match_id} of league {printable(written.league)}, {written.games} "
               f"games, {written.files} files, {written.bytes / 1000:.0f} kB")
    click.echo(f"play it again and compare: {written.path / 'run'} (arena bundle run {written.path})")


@bundle.command("run")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep the rerun's records and result here  [default: a temporary folder, removed]")
@click.option("--other-images", is_flag=True,
              help="Play with the images of the bundle's names even where their ids differ (a new build).")
@user_errors
def bundle_run(folder: Path, out: Path | None, other_images: bool) -> None:
    """Check the bundle in FOLDER, play its match again, and compare every game.

    Every file's SHA-256 is checked first, then the bundle's consistency (spec, records, views),
    then the bots' images. Prints "identical: N games" or the first difference; the exit status
    is non-zero for any difference or refusal."""
    try:
        loaded = load_bundle(folder)
        match = loaded.manifest.get("match") or {}
        spec = loaded.spec
        click.echo(f"match {printable(str(match.get('id', '?')))} of league {printable(str(match.get('league', '?')))}"
                   f": {spec.game}, {spec.games} games, {', '.join(printable(b.name) for b in spec.bots)}")
        click.echo(f"checked: {len(loaded.manifest['files'])} files, the spec's deals, every record replayed "
                   "and every view rebuilt")
        for note in loaded.notes:
            click.echo(f"note: {note}")
        for line in check_images(loaded, other_images):
            click.echo(f"image: {line}")
    except BundleError as exc:
        raise click.ClickException(str(exc)) from exc
    out_dir = out or Path(tempfile.mkdtemp(prefix="arena-bundle-"))
    try:
        click.echo(f"playing the match again ({spec.games} games)...")
        result = rerun(loaded, out_dir)
        difference = first_difference(loaded, result.games, out_dir)
    finally:
        if out is None:
            shutil.rmtree(out_dir, ignore_errors=True)
    if difference:
        click.echo(f"different: {difference}")
        raise SystemExit(1)
    click.echo(f"identical: {len(result.games)} games")
