"""``arena compare``: is bot A better than bot B? A sequential test on duplicate deals."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from arena_games import GameError, get_game
from referee.spec import MatchSpec, dev_secret, new_secret
from referee.textlog import printable

from .. import compare as comparing
from ..league.schedule import ScheduleOptions
from .completion import complete_bots
from .options import GAME, parse_settings, quiet_option, time_options, user_errors
from .progress import Progress, table


@click.command()
@click.argument("bot_a", shell_complete=complete_bots)
@click.argument("bot_b", shell_complete=complete_bots)
@click.option("--game", type=GAME, default=None, help="Default: the one game both bots play.")
@click.option("--players", default=comparing.PLAYERS, show_default=True, type=click.IntRange(min=2),
              help="Players per table; for more than 2 the seats hold A, B, A, B, ... (each seat its own process).")
@click.option("--deals", default=comparing.DEALS, show_default=True, type=click.IntRange(min=1),
              help="Deals per match: a match is players x deals games, a cycle players matches.")
@click.option("--alpha", default=comparing.Design.alpha, show_default=True,
              help="P(declaring a difference when there is none).")
@click.option("--beta", default=comparing.Design.beta, show_default=True, help="P(missing a difference of delta).")
@click.option("--delta", default=comparing.Design.delta, show_default=True,
              help="The difference to find, in expected score per deal (x: 1 win, 1/2 tie, 0 loss).")
@click.option("--max-games", default=comparing.MAX_GAMES, show_default=True, type=click.IntRange(min=1),
              help="Stop undecided rather than play more games than this (whole cycles, at least one).")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(min=1), help="Matches at once.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Development only: deal from this public seed, reproducibly, and so guessably by any bot. "
                   "Default: a fresh secret.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="A [house] setting.")
@time_options()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Where records go (default: runs/compare-<time>).")
@click.option("--db", "db_url", envvar="ARENA_DB", metavar="URL",
              help="Where registered bots are (SQLAlchemy URL); default $ARENA_DB or sqlite:///runs/arena.db.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict and its evidence as JSON only.")
@quiet_option
@user_errors
def compare(bot_a: str, bot_b: str, game: str | None, players: int, deals: int, alpha: float, beta: float,
            delta: float, max_games: int, jobs: int, seed: int | None, overrides: tuple[str, ...], decision_ms: int,
            bank_ms: int, increment_ms: int, match_bank_ms: int, out: Path | None, db_url: str | None, as_json: bool,
            quiet: bool) -> None:
    """Play BOT_A against BOT_B on duplicate deals until a sequential test can say "A is better",
    "B is better" or "no difference" (of at least --delta), at error rates --alpha and --beta.

    A bot is a registered NAME[@VERSION] (its image, from the store), image:IMAGE, or
    builtin:random|heuristic|search (played inside the referee: fast, for development). Each deal is
    played in every seat rotation, each rotation by fresh bot processes; A's score per seat
    minus B's, over the rotations, makes the deal a win, a tie or a loss for A (docs/leagues.md).
    """
    try:
        design = comparing.Design(alpha, beta, delta)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    a, b = (comparing.resolve(text, lambda: _store(db_url)) for text in (bot_a, bot_b))
    game = comparing.common_game(a, b, game)
    settings = parse_settings(overrides)
    try:
        settings = get_game(game).validate(players, settings).to_dict()
    except GameError as exc:
        raise click.UsageError(str(exc)) from None
    out = out or Path("runs") / f"compare-{time.strftime('%Y%m%d-%H%M%S')}"
    options = ScheduleOptions(deals=deals, decision_ms=decision_ms, bank_ms=bank_ms, increment_ms=increment_ms,
                              match_bank_ms=match_bank_ms)
    secret = new_secret() if seed is None else dev_secret(seed)
    per_cycle = players * players * deals
    most = max(1, max_games // per_cycle) * per_cycle
    # --json: the document alone on stdout. Off a terminal the cycle lines are the progress (lines=False)
    with Progress(f"compare {table([a.label, b.label])}", total=most, quiet=quiet or as_json, lines=False) as shown:
        shown.message(f"{printable(a.label)} (A) against {printable(b.label)} (B): {game}, {players} players, "
                      f"cycles of {players} matches x {players * deals} games ({players * deals} deals in every "
                      f"rotation); alpha {alpha}, beta {beta}, delta {delta}")
        shown.message(f"each test accepts at LLR >= {design.upper:.2f} and gives up at LLR <= "
                      f"{design.lower:.2f}; at most {most} games; records in {out}")

        def said(cycle: int, test: comparing.Sprt) -> None:
            e = test.evidence()
            shown.message(f"cycle {cycle}: {e['deals']} deals, A {e['wins']} won {e['ties']} tied {e['losses']} "
                          f"lost, score {e['score']:.3f}; LLR A better {e['llr']['a_better']:+.2f}"
                          f"{_mark(e, 'a_better')}, B better {e['llr']['b_better']:+.2f}{_mark(e, 'b_better')}")
            shown.update(status=f"SPRT: {e['deals']} deals, A {e['wins']} won {e['ties']} tied {e['losses']} lost; "
                                f"LLR A better {e['llr']['a_better']:+.2f}, B better {e['llr']['b_better']:+.2f} "
                                f"(accept {design.upper:+.2f}, give up {design.lower:+.2f})")

        def ended(spec: MatchSpec, played: dict) -> None:
            shown.ended(spec.match_id)
            shown.advance(len(played["games"]), [f for g in played["games"] for f in g["failures"]])

        result = comparing.compare(
            a, b, game, secret, out, players=players, design=design, options=options, settings=settings,
            max_games=max_games, jobs=jobs, on_cycle=said, match_ended=ended,
            match_started=lambda spec: shown.started(spec.match_id, spec.match_id.removeprefix("compare-")))
    if as_json:
        click.echo(json.dumps(result.as_dict(a, b, out), indent=1))
        return
    test = result.test
    click.echo(f"{result.verdict}{'' if result.verdict != comparing.NO_DIFFERENCE else f' of at least {delta}'}: "
               f"A scored {test.score:.3f} per deal over {test.deals} deals ({result.games} games, "
               f"{result.seat_failures} seat failures, {result.seconds:.0f} s)")


def _mark(evidence: dict, side: str) -> str:
    return {"H1": " (accepted)", "H0": " (rejected)"}.get(evidence["decided"][side], "")


def _store(db_url: str | None):
    from ..store import StoreError, open_store

    try:
        return open_store(db_url, create=False)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
