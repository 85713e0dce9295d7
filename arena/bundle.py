"""Match bundles: one stored match in a folder that plays it again on another machine.

``write_bundle(store, match_id)`` makes ``bundle-<id>/``:

- ``manifest.json``: the format, the Arena version, the engine (game, version, settings and
  :func:`engine_digest`), the match spec as the referee ran it (``MatchSpec.to_dict()``: its
  deal secret and bot secret, plan and time control), each bot as stored (name, version, image,
  image digest), each game's seats, seed, scores, ranks and failures, and the SHA-256 of every
  other file;
- ``records/``: each game's record, byte for byte but for the bots' debug texts, which are their
  owners' alone and are taken out (``referee.records.without_debug``); ``views/``: each seat's view of each game,
  step by step, as :func:`arena.replays.rebuild` makes it (its JSON, gzipped);
- ``run`` (``exec arena bundle run "$(dirname "$0")" "$@"``) and ``README.txt``.

The league's secret is never in a bundle, only the match's two secrets derived from it. The
deal secret is shared by every match of the table's duplicate cycle (``Slot.secrets``), so a
match is bundled only once its whole cycle is stored: before, the bundle would tell its bots'
authors the deals they are still to play.

``load_bundle(folder)`` reads a bundle as the hostile input it is (it comes from another
machine): sizes are capped, every path stays inside the folder (no ``..``, no absolute path, no
symlink, regular files only), every file's digest is checked, the spec goes through
``parse_spec`` and may only run bots from images (never a command), and the records, views and
manifest must agree with each other and with the spec. :func:`check_images` then finds each
image with its recorded digest, :func:`rerun` plays the match again with the spec, and
:func:`first_difference` compares the two (see its docstring for what is compared, and why).
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from arena_games import GAMES, get_game
from referee import MatchResult, launch
from referee.records import Record, RecordError, read_record, without_debug
from referee.seats import NO_HELLO, TIMEOUT
from referee.spec import MatchSpec, SpecError, parse_spec
from referee.textlog import printable

from . import access
from .replays import rebuild
from .store import Bot, League, Match, Store

FORMAT = "arena-match-bundle/1"
MANIFEST = "manifest.json"
RUN_SCRIPT = '#!/bin/sh\n# Plays this match again and compares it with its records (see README.txt).\n' \
             'exec arena bundle run "$(dirname "$0")" "$@"\n'

# what reading a bundle from elsewhere accepts at most
MAX_MANIFEST_BYTES = 8 * 2**20
MAX_FILE_BYTES = 64 * 2**20  # a record or a view (the long games of 6 players are a few MB)
MAX_TOTAL_BYTES = 512 * 2**20  # all of it is held in memory while it is checked
MAX_FILES = 10_000
MAX_GAMES = 1_000
_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}(/[A-Za-z0-9_][A-Za-z0-9._-]{0,99})?")
# failures that depend on the machine's speed and load rather than on what the bot decided
TIME_FAILURES = (TIMEOUT, NO_HELLO)


class BundleError(Exception):
    """A match that cannot be bundled, or a bundle that is refused; the message says why."""


# -- writing ----------------------------------------------------------------------------------------
def engine_digest(game: str) -> str:
    """SHA-256 of the engine's code: the game's module and the modules it shares with the other
    games (``games/arena_games/core.py``, ``cards.py``, ``views.py``), not the other games'."""
    module = Path(sys.modules[get_game(game).state.__module__].__file__ or "")
    others = {Path(sys.modules[g.state.__module__].__file__ or "").name for g in GAMES.values()} - {module.name}
    digest = hashlib.sha256()
    for path in sorted(module.parent.glob("*.py")):
        if path.name not in others and path.name != "__init__.py":
            data = path.read_bytes()
            digest.update(f"{path.name}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def arena_version() -> str:
    try:
        return importlib.metadata.version("arena")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class WrittenBundle:
    path: Path
    match_id: int
    league: str
    games: int
    files: int
    bytes: int


def write_bundle(store: Store, match_id: int, out: Path | None = None) -> WrittenBundle:
    """Writes the bundle of match ``match_id`` into the folder ``out`` (default
    ``bundle-<match id>``), which must not exist. Refused, with :class:`BundleError`, for a match
    whose duplicate cycle is not all stored, and for records that disagree with the store."""
    from .league import cycles  # the one place that says when a cycle is all stored
    from .league.schedule import Slot  # the one place that says which matches share a deal secret

    with store() as session:
        match = session.get(Match, match_id)
        if match is None:
            raise BundleError(f"no match {match_id}")
        league = session.get_one(League, match.league_id)
        slot = Slot(match.round, tuple(int(b) for b in match.table.split(",")))
        k = len(slot.table)
        first = slot.cycle * k
        stored = cycles.cycle_of(session, league.id, match.round, match.table)
        if not access.may_see_table(None, access.Game(public=stored.complete)):  # a bundle shows every seat
            missing = stored.missing
            rounds = f"round{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}"
            raise BundleError(
                f"match {match_id} is round {match.round} of duplicate cycle {slot.cycle} of its table "
                f"(rounds {first} to {first + k - 1}), and {rounds} of that cycle "
                f"{'are' if len(missing) > 1 else 'is'} not stored yet: the match's deal secret also deals "
                f"{'them' if len(missing) > 1 else 'it'}, so its bundle would reveal deals still to be played. "
                "Bundle it once the cycle has been played.")
        bots = {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(match.bots)))}
        table: list[Bot] = [bots[b] for b in match.bots]
        games = [(g.index, g.seed, g.deal, [match.bots.index(b) for b in g.seats], g.scores, g.ranks, g.failures,
                  Path(g.record_path)) for g in match.games]
        record_dir = Path(match.record_dir)
        league_name, league_secret, league_format = league.name, league.secret, league.schedule.get(
            "format", "round-robin")
        deal_secret, bot_secret = slot.secrets(league.secret)
        match_round, cycle = match.round, slot.cycle

    spec = _stored_spec(record_dir, match_id)
    if (spec.secret, spec.bot_secret) != (deal_secret, bot_secret):
        raise BundleError(f"the records in {record_dir} are not match {match_id}'s: their spec has other secrets")
    if [b.image for b in spec.bots] != [b.image for b in table]:
        raise BundleError(f"the spec in {record_dir} runs other images than match {match_id}'s bots")
    if len(games) != spec.games:
        raise BundleError(f"match {match_id} has {len(games)} stored game(s), its spec {spec.games}")

    out = Path(out or f"bundle-{match_id}")
    if out.exists() or out.is_symlink():
        raise BundleError(f"{out} exists already: remove it or give another --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))  # renamed once complete
    try:
        files: dict[str, str] = {}

        def put(rel: str, data: bytes, gz: bool = False) -> None:
            if league_secret.encode() in data.lower():  # never, by construction; checked anyway
                raise BundleError(f"{rel} would hold the league's secret")
            if gz:  # a view repeats from step to step: a fiftieth of the size, gzipped
                data = gzip.compress(data, mtime=0)
            (tmp / rel).parent.mkdir(exist_ok=True)
            (tmp / rel).write_bytes(data)
            files[rel] = hashlib.sha256(data).hexdigest()

        entries = []
        for index, seed, deal, seats, scores, ranks, failures, path in games:
            try:
                data = path.read_bytes()
                record = read_record(path)
            except OSError as exc:
                raise BundleError(f"match {match_id}'s record {path} cannot be read ({exc.strerror}): bundle "
                                  "it where the league was played") from None
            except RecordError as exc:
                raise BundleError(str(exc)) from None
            if record.result != {"type": "result", "scores": scores, "ranks": ranks, "failures": failures}:
                raise BundleError(f"the record {path} does not end with game {index}'s stored result")
            rel = f"records/game-{index:03d}.jsonl"
            put(rel, without_debug(data))  # a bundle is published: no seat's debug text goes with it
            views = []
            for seat in range(k):
                view = f"views/game-{index:03d}-seat-{seat}.json.gz"
                try:
                    put(view, rebuild(record, seat).json(), gz=True)
                except (RecordError, ValueError) as exc:
                    raise BundleError(f"the record {path} does not replay: {exc}") from None
                views.append(view)
            entries.append({"index": index, "deal": deal, "seed": seed, "seats": seats, "scores": scores,
                            "ranks": ranks, "failures": failures, "record": rel, "views": views})
        put("run", RUN_SCRIPT.encode())
        (tmp / "run").chmod(0o755)
        put("README.txt", _readme(match_id, league_name, spec, match_round, cycle, table).encode())
        manifest = {
            "format": FORMAT,
            "arena_version": arena_version(),
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "match": {"id": match_id, "league": league_name, "format": league_format, "round": match_round,
                      "cycle": cycle},
            "engine": {"game": spec.game, "version": get_game(spec.game).version, "settings": spec.settings,
                       "code_sha256": engine_digest(spec.game)},
            "spec": spec.to_dict(),
            "bots": [{"name": b.name, "version": b.version, "image": b.image, "image_digest": b.image_digest}
                     for b in table],
            "games": entries,
            "files": files,
        }
        text = json.dumps(manifest, indent=1).encode()
        if league_secret.encode() in text.lower():
            raise BundleError("the manifest would hold the league's secret")
        (tmp / MANIFEST).write_bytes(text)
        tmp.chmod(0o755)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return WrittenBundle(out, match_id, league_name, len(entries), len(files) + 1, size)


def _stored_spec(record_dir: Path, match_id: int) -> MatchSpec:
    """The spec the referee ran: ``result.json``'s (else ``spec.json``, which ``launch`` wrote:
    the same)."""
    for name, key in (("result.json", "spec"), ("spec.json", None)):
        try:
            data = json.loads((record_dir / name).read_text())
            return parse_spec(data[key] if key else data)
        except FileNotFoundError:
            continue
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise BundleError(f"match {match_id}'s {record_dir / name} is not readable: {exc}") from None
    raise BundleError(f"match {match_id}'s records are not here ({record_dir}): bundle it where the league was "
                      "played")


def _readme(match_id: int, league: str, spec: MatchSpec, round_: int, cycle: int, bots: list[Bot]) -> str:
    lines = [
        f"Arena match bundle: match {match_id} of league {printable(league)} ({spec.game}, "
        f"{spec.num_players} players), round {round_} (duplicate cycle {cycle}), {spec.games} games.",
        "",
        "Bots (image and the image's id when the match was played):",
        *(f"  {printable(b.label)}  {printable(b.image, 200)}  {printable(b.image_digest, 80)}" for b in bots),
        "",
        "Play it again on a machine with Arena and these images, and compare with the records here:",
        "  ./run             (that is: arena bundle run THIS_FOLDER)",
        "Every file's SHA-256 is checked against manifest.json first; then each image; then the match",
        "is played again from its spec and every game's actions and results are compared.",
        "Images: `docker save IMAGE... | gzip > bots.tar.gz` where the match was played, then",
        "`docker load -i bots.tar.gz` here keeps their ids; `arena bot build DIR` builds one anew.",
        "",
        "manifest.json  the match spec (with its deal and bot secrets), the engine, the bots, each game's",
        "               result, and every other file's SHA-256",
        "records/       each game's record: arena replay records/game-000.jsonl",
        "views/         each seat's view of each game, step by step, as Arena's replay viewer shows it (gzipped JSON)",
        "",
    ]
    return "\n".join(lines)


# -- reading ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Bundle:
    """A bundle that passed every check of :func:`load_bundle`."""

    path: Path
    manifest: dict[str, Any]
    spec: MatchSpec
    records: list[Record]
    notes: list[str]  # what differs here from where the bundle was made (engine code, Arena version)

    @property
    def games(self) -> list[dict[str, Any]]:
        return self.manifest["games"]

    @property
    def bots(self) -> list[dict[str, Any]]:
        return self.manifest["bots"]


def load_bundle(folder: Path) -> Bundle:
    """Reads and checks the bundle in ``folder``; :class:`BundleError` names the first problem."""
    try:
        root = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise BundleError(f"{folder}: not a folder that can be read ({exc.strerror})") from None
    try:
        return _load(folder, root)
    finally:
        os.close(root)


def _load(folder: Path, root: int) -> Bundle:
    try:
        manifest = json.loads(_read(root, MANIFEST, MAX_MANIFEST_BYTES))
    except (ValueError, RecursionError) as exc:
        raise BundleError(f"{MANIFEST} is not JSON: {str(exc)[:200]}") from None
    m = _Fields(manifest, MANIFEST)
    if m.get("format", str) != FORMAT:
        raise BundleError(f"{MANIFEST} is not an Arena match bundle's ({FORMAT}); "
                          f"its format is {printable(str(manifest.get('format')))}")
    files = m.get("files", dict)
    if len(files) > MAX_FILES:
        raise BundleError(f"{MANIFEST} lists {len(files)} files; a bundle has at most {MAX_FILES}")

    # 1. every file is inside the folder and has the digest the manifest says
    contents: dict[str, bytes] = {}
    total = 0
    for rel, digest in files.items():
        _check_path(rel)
        data = _read(root, rel, MAX_FILE_BYTES)
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            raise BundleError(f"the bundle's files are larger than {MAX_TOTAL_BYTES // 2**20} MB together")
        if hashlib.sha256(data).hexdigest() != digest:
            raise BundleError(f"{rel} has been changed: its SHA-256 is not the one in {MANIFEST}")
        contents[rel] = data

    # 2. the spec: parsed as any spec is, and only bots in images
    try:
        spec = parse_spec(m.get("spec", dict))
    except SpecError as exc:
        raise BundleError(f"{MANIFEST}: the match spec: {exc}") from None
    for i, bot in enumerate(spec.bots):
        if bot.kind != "docker":
            raise BundleError(f"{MANIFEST}: the spec's bot {i} ({printable(bot.name)}) is not an image: a bundle "
                              "plays bots in their sandboxed containers, never a command")
    if spec.games > MAX_GAMES:
        raise BundleError(f"{MANIFEST}: {spec.games} games; a bundle has at most {MAX_GAMES}")
    bots = m.get("bots", list)
    if len(bots) != spec.num_players:
        raise BundleError(f"{MANIFEST}: {len(bots)} bots, the spec {spec.num_players}")
    for i, (raw, bot) in enumerate(zip(bots, spec.bots, strict=True)):
        b = _Fields(raw, f"{MANIFEST}: bots[{i}]")
        for key in ("name", "version", "image", "image_digest"):
            b.get(key, str)
        if b.data["image"] != bot.image:
            raise BundleError(f"{MANIFEST}: bot {i}'s image is {printable(b.data['image'], 200)}, the spec runs "
                              f"{printable(bot.image, 200)}")
        if f"{b.data['name']}@{b.data['version']}" != bot.name:
            raise BundleError(f"{MANIFEST}: bot {i} is {printable(b.data['name'])}@{printable(b.data['version'])}, "
                              f"the spec's is {printable(bot.name)}")

    # 3. the engine
    notes = []
    engine = _Fields(m.get("engine", dict), f"{MANIFEST}: engine")
    game = get_game(spec.game)
    if engine.get("game", str) != spec.game or engine.get("settings", dict) != spec.settings:
        raise BundleError(f"{MANIFEST}: the engine's game and settings are not the spec's")
    if engine.get("version", str) != game.version or engine.get("code_sha256", str) != engine_digest(spec.game):
        notes.append(f"the {spec.game} engine's code here (version {game.version}) is not the code the match was "
                     f"played with (version {printable(engine.data['version'])}): a difference may come from it")
    made_with = str(manifest.get("arena_version", ""))
    if made_with != arena_version():
        notes.append(f"the bundle was made by Arena {printable(made_with)}, this is Arena {arena_version()}")

    # 4. each game: manifest, record, views and spec agree
    games = m.get("games", list)
    if len(games) != spec.games:
        raise BundleError(f"{MANIFEST}: {len(games)} games, the spec {spec.games}")
    records = [_check_game(i, raw, spec, files, contents) for i, raw in enumerate(games)]
    return Bundle(folder, manifest, spec, records, notes)


def _check_game(i: int, raw: Any, spec: MatchSpec, files: dict[str, Any], contents: dict[str, bytes]) -> Record:
    where = f"{MANIFEST}: game {i}"
    g = _Fields(raw, where)
    n = spec.num_players
    rel = g.get("record", str)
    if rel not in files:
        raise BundleError(f"{where}: its record {printable(rel)} is not among the manifest's files")
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as tmp:  # read_record reads a file
        tmp.write(contents[rel])
        tmp.flush()
        try:
            record = read_record(tmp.name)
        except RecordError as exc:
            raise BundleError(f"{rel}: {str(exc).replace(tmp.name, rel)}") from None
    h = _Fields(record.header, f"{rel}: the header")
    if g.get("index", int) != i or h.get("game_index", int) != i:
        raise BundleError(f"{where}: it is not game {i} (its record says {printable(str(h.data['game_index']))})")
    if (h.get("game", str), h.get("settings", dict), h.get("num_players", int)) != (spec.game, spec.settings, n):
        raise BundleError(f"{rel}: not a game of the spec's engine, settings and players")
    seed = spec.game_seed(i)
    if str(g.get("seed", str)) != str(seed) or h.data.get("seed") != seed:
        raise BundleError(f"{where}: the spec's secret does not deal the recorded seed (the spec's secret, the "
                          "manifest or the record was changed)")
    if g.get("deal", str) != spec.deal(i) or h.data.get("deal") != spec.deal(i):
        raise BundleError(f"{where}: its deal is not the spec's plan's {printable(spec.deal(i))}")
    seats = g.get("seats", list)
    if seats != [spec.bot_at(i, s) for s in range(n)]:
        raise BundleError(f"{where}: its seats are not the spec's rotation")
    header_seats = h.get("seats", list)
    if [s.get("bot") if isinstance(s, dict) else None for s in header_seats] != [spec.bots[b].name for b in seats]:
        raise BundleError(f"{rel}: its seats are not the spec's bots in the spec's rotation")
    result = record.result or {}
    for key in ("scores", "ranks", "failures"):
        if g.get(key, list) != result.get(key):
            raise BundleError(f"{where}: its {key} are {printable(str(g.data[key]), 200)}, its record's "
                              f"{printable(str(result.get(key)), 200)}")
    views = g.get("views", list)
    if len(views) != n:
        raise BundleError(f"{where}: {len(views)} views, one per seat ({n}) expected")
    for seat, view in enumerate(views):
        if view not in files:
            raise BundleError(f"{where}: its view {printable(str(view))} is not among the manifest's files")
        try:
            rebuilt = rebuild(record, seat).json()
        except (RecordError, ValueError) as exc:
            raise BundleError(f"{rel} does not replay: {exc}") from None
        if rebuilt != _gunzip(view, contents[view], MAX_FILE_BYTES):
            raise BundleError(f"{view} is not seat {seat}'s view of its record {rel}")
    return record


def _gunzip(rel: str, data: bytes, limit: int) -> bytes:
    unzip = zlib.decompressobj(wbits=31)  # gzip
    try:
        out = unzip.decompress(data, limit + 1)
    except zlib.error as exc:
        raise BundleError(f"{rel} is not gzip: {exc}") from None
    if len(out) > limit:
        raise BundleError(f"{rel} is larger than {limit // 2**20} MB once unpacked")
    return out


class _Fields:
    """A mapping from the manifest, read field by field with its type checked."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise BundleError(f"{where} must be a mapping")
        self.data, self.where = data, where

    def get(self, key: str, kind: type) -> Any:
        value = self.data.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise BundleError(f"{self.where}: {key!r} must be a {kind.__name__}")
        return value


def _check_path(rel: Any) -> None:
    if not isinstance(rel, str) or not _PATH.fullmatch(rel) or rel == MANIFEST:
        raise BundleError(f"{MANIFEST} names the file {printable(str(rel), 100)}: a bundle's files are plain "
                          "names in it or in one of its folders (no '..', no absolute path)")


def _read(root: int, rel: str, limit: int) -> bytes:
    """The file ``rel`` of the folder open as ``root``, never through a symlink, and only a
    regular file of at most ``limit`` bytes."""
    parts = rel.split("/")
    fds: list[int] = []
    try:
        at = root
        for part in parts[:-1]:
            fds.append(os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=at))
            at = fds[-1]
        fds.append(os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=at))
        info = os.fstat(fds[-1])
        if not stat.S_ISREG(info.st_mode):
            raise BundleError(f"{rel} is not a regular file")
        if info.st_size > limit:
            raise BundleError(f"{rel} is larger than {limit // 2**20} MB")
        with os.fdopen(os.dup(fds[-1]), "rb") as file:
            data = file.read(limit + 1)
        if len(data) > limit:
            raise BundleError(f"{rel} is larger than {limit // 2**20} MB")
        return data
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # a symlink where a file or folder should be
            raise BundleError(f"{rel} is a symlink or not where the manifest says: a bundle's files are its own") \
                from None
        raise BundleError(f"{rel} cannot be read: {exc.strerror}") from None
    finally:
        for fd in fds:
            os.close(fd)


# -- playing it again ---------------------------------------------------------------------------------
def check_images(bundle: Bundle, other_images: bool = False) -> list[str]:
    """One line per bot: its image here and its id. Raises :class:`BundleError` naming every
    image that is missing or (unless ``other_images``) has another id than the bundle's."""
    import docker.errors

    from referee.sandbox import client

    engine = client()
    lines, problems = [], []
    for bot in bundle.bots:
        label, image, want = (printable(f"{bot['name']}@{bot['version']}"), printable(bot["image"], 200),
                              bot["image_digest"])
        try:
            found = engine.api.inspect_image(bot["image"])["Id"]
        except docker.errors.ImageNotFound:
            problems.append(f"{label}: there is no image {image} here")
            continue
        except docker.errors.APIError as exc:
            problems.append(f"{label}: the image {image}: {printable(str(exc.explanation or exc), 200)}")
            continue
        if found != want:
            message = f"{label}: the image {image} here is {found[:19]}, the match was played with {want[:19]}"
            if not other_images:
                problems.append(message)
                continue
            lines.append(f"{message} (--other-images)")
        else:
            lines.append(f"{label}: {image} {found[:19]}")
    if problems:
        raise BundleError("the bots' images are not here as the match played them:\n" + "\n".join(
            f"  {p}" for p in problems) + "\nGet the very images where the match was played (`docker save IMAGE... | "
            "gzip > bots.tar.gz`, then here `docker load -i bots.tar.gz`), or build each from its bot's folder "
            "(`arena bot build DIR`) and rerun with --other-images, since a new build has another id.")
    return lines


def rerun(bundle: Bundle, out_dir: Path) -> MatchResult:
    """Plays the bundle's match again from its spec, its records into ``out_dir``."""
    return launch(bundle.spec, out_dir)


def first_difference(bundle: Bundle, games: list[dict[str, Any]], out_dir: Path) -> str | None:
    """The first difference between the bundle's games and a rerun's (``result.json``'s games,
    their records in ``out_dir``), in words; None when they are identical.

    Compared, game by game, in the order they happened: every decision's seat and action and
    whether the referee's fallback played it; every seat failure's seat, reason and the decision
    before which it happened; then the scores, ranks and failures. Not compared: think times
    and time banks, failure details (a crash's output, an error's wording), restarts and
    process counts, which depend on the machine. Given the same deals and bot seeds, a bot that
    decides from its view and its seed alone (as the kits' strategies do) plays the same game
    again; a seat that ran out of time may not, on a machine of another speed or load, and a
    bot that uses the clock or its own randomness will not: either is reported as a difference.
    """
    if len(games) != len(bundle.games):
        return f"the rerun played {len(games)} games, the bundle has {len(bundle.games)}"
    names = [bot.name for bot in bundle.spec.bots]
    for want, record, got in zip(bundle.games, bundle.records, games, strict=True):
        i = want["index"]
        try:
            again = read_record(out_dir / got["record"])
        except RecordError as exc:
            return f"game {i}: the rerun's record: {exc}"

        def seat_name(seat: int, game: dict[str, Any] = want) -> str:
            return f"seat {seat} ({printable(names[game['seats'][seat]])})"

        if str(got["seed"]) != want["seed"] or got["bots"] != want["seats"]:
            return f"game {i}: the rerun dealt another seed or seated other bots (is the referee the same?)"
        ours, theirs = _steps(record), _steps(again)
        for step in range(max(len(ours), len(theirs))):
            a = ours[step] if step < len(ours) else None
            b = theirs[step] if step < len(theirs) else None
            if a == b:
                continue
            why = ""
            if any(e is not None and e[0] == "failure" and e[2] in TIME_FAILURES for e in (a, b)):
                why = " (time limits depend on the machine's speed and load)"
            at = sum(1 for e in ours[:step] if e[0] == "decision")
            return (f"game {i} (deal {printable(want['deal'])}), at decision {at}: in the bundle "
                    f"{_words(a, seat_name)}, in the rerun {_words(b, seat_name)}{why}")
        for key in ("scores", "ranks", "failures"):
            if want[key] != got[key]:
                return f"game {i}: {key} {want[key]} in the bundle, {got[key]} in the rerun"
    return None


def _steps(record: Record) -> list[tuple]:
    """A record's decisions and failures, in the order they happened."""
    out: list[tuple] = []
    failures = sorted(record.failures, key=lambda f: f["decision"])
    for k, d in enumerate([*record.decisions, None]):
        while failures and failures[0]["decision"] == k:
            f = failures.pop(0)
            out.append(("failure", f["seat"], f["reason"]))
        if d is not None:
            out.append(("decision", d["seat"], d["action"], bool(d.get("fallback"))))
    return out


def _words(step: tuple | None, seat_name: Any) -> str:
    if step is None:
        return "the game was over"
    if step[0] == "failure":
        return f"{seat_name(step[1])} failed ({printable(step[2])})"
    how = " (the referee's fallback)" if step[3] else ""
    return f"{seat_name(step[1])} played {printable(step[2])!r}{how}"
