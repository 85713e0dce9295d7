"""Parsing helpers shared by the command modules."""

from __future__ import annotations

import click

from referee.games import GAMES, UnknownGame, get_game


class GameName(click.ParamType):
    """A game's name, checked against the registry so the error lists the known games."""

    name = "game"

    def convert(self, value, param, ctx):
        try:
            return get_game(value).name
        except UnknownGame as exc:
            self.fail(str(exc), param, ctx)

    def get_metavar(self, param, ctx=None) -> str:
        return "[" + "|".join(sorted(GAMES)) + "]"


GAME = GameName()


def parse_settings(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``("max_bribe_offers=2", ...)`` -> ``{"max_bribe_offers": "2"}``; the engine converts types."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--set")
        out[key.strip()] = value.strip()
    return out
