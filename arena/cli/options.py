"""Parsing helpers shared by the command modules."""

from __future__ import annotations

import click


def parse_settings(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``("max_bribe_offers=2", ...)`` -> ``{"max_bribe_offers": "2"}``; the engine converts types."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--set")
        out[key.strip()] = value.strip()
    return out
