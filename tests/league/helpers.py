from __future__ import annotations

from sqlalchemy import select

from arena.bots import load_bot_config
from arena.league import create_league, register_bot
from arena.league.schedule import ScheduleOptions
from arena.store import Game, Match, Store

from ..docker_fixtures import ROOT

SAMPLE_FOLDERS = ("random", "first_legal", "prohis_heuristic", "prohis_bold")


def league_of_samples(store: Store, client, name: str = "l", players: int = 3, deals: int = 2,
                      **options) -> None:
    """A Prohis league of the four Python sample bots, registered from their built images."""
    create_league(store, name, "prohis", players, {}, ScheduleOptions(deals=deals, seed=5, **options))
    for folder in SAMPLE_FOLDERS:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder, root=ROOT / "sample_bots" / "python")
        register_bot(store, name=config.name, version=config.version, image=config.tag,
                     image_digest=client.images.get(config.tag).id, language=config.language,
                     author=config.author, games=list(config.games), league=name)


def stored_games(store: Store) -> list[tuple]:
    """Every stored game, as comparable plain data, in a canonical order."""
    with store() as session:
        rows = session.execute(select(Match.round, Match.table, Game.index, Game.seed, Game.seats, Game.scores,
                                      Game.ranks, Game.failures).join(Game.match)).all()
    return sorted((r.round, r.table, r.index, r.seed, tuple(r.seats), tuple(r.scores), tuple(r.ranks),
                   tuple(r.failures)) for r in rows)
