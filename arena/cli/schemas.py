"""The JSON Schema of every listing command's ``--json`` document: the one definition, which
docs/cli.md renders as a table per command (``python -m arena.cli.schemas`` prints that part of
the page, ``python -m arena.cli.schemas show match`` one command's JSON Schema); a test checks
the page holds exactly this text and that each command's real output validates.

A listing command is one whose output is a list of things, or one stored record shown; the
keys of :data:`SCHEMAS` are their command paths, and a test of the command tree holds every
other command to a stated reason for having no ``--json``.

Only a small subset of JSON Schema is used (type, properties, required, additionalProperties,
items, enum, minimum, format date-time): :func:`validate` checks exactly that subset, so the
tests need no validator package.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from ..league.schedule import FORMATS

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _obj(about: str, /, **properties: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly these properties, every one present."""
    return {"type": "object", "description": about, "properties": properties,
            "required": list(properties), "additionalProperties": False}


def _list(items: dict[str, Any], description: str) -> dict[str, Any]:
    return {"type": "array", "description": description, "items": items}


def _t(kind: str | list[str], description: str, **more: Any) -> dict[str, Any]:
    return {"type": kind, "description": description, **more}


def _time(description: str, nullable: bool = False) -> dict[str, Any]:
    return _t(["string", "null"] if nullable else "string", description + " (ISO 8601, UTC)", format="date-time")


ID = _t("integer", "the bot version's id in the store", minimum=1)
NAME = _t("string", "the bot's name (its author's text)")
VERSION = _t("string", "the bot's version (its author's text)")
LANGUAGE = _t("string", "bot.toml's language")

GAME = _obj(
    "One stored game: its deal and every seat's result.",
    id=_t("integer", "the game's id", minimum=1),
    match_id=_t("integer", "its match's id", minimum=1),
    index=_t("integer", "its place in the match, from 0", minimum=0),
    deal=_t("string", "the deal's label: the same label in a table's cycle deals the same cards"),
    seed=_t("string", "the game's seed (decimal digits)"),
    record_path=_t("string", "its game record (arena replay)"),
    cycle_complete=_t("boolean", "its table's duplicate cycle is all stored; until it is, the game shows deals "
                                 "that the cycle's other matches play, and arena serve and arena watch hide it"),
    seats=_list(_obj(
        "One seat of the game.",
        seat=_t("integer", "the seat, from 0", minimum=0),
        bot_id=ID, bot=NAME, version=VERSION, language=LANGUAGE,
        score=_t("integer", "the seat's score in the game's unit"),
        rank=_t("integer", "1 is best; a failed seat ranks last", minimum=1),
        failure=_t("string", 'why the seat failed ("timeout", "crash", ...); "" when it did not'),
    ), "by seat"),
)

SCHEMAS: dict[str, dict[str, Any]] = {
    "bot list": _list(_obj(
        "One registered bot version.",
        bot_id=ID, bot=NAME, version=VERSION, language=LANGUAGE,
        author=_t("string", "bot.toml's author"),
        owner=_t(["string", "null"], "the account that submitted it over HTTP; null: registered on the command line"),
        games=_list(_t("string", "a game's name"), "the games it claims to play; [] means all"),
        image=_t("string", "its container image (tag)"),
        image_digest=_t("string", "the image's ID it was registered with (sha256:...)"),
        archived=_t("boolean", "its image is kept in the store for workers (arena images archive)"),
        created_at=_time("when it was registered"),
        retired_at=_time("when it was retired (it plays no new match); null: not retired", nullable=True),
        leagues=_list(_t("string", "a league's name"), "the leagues it entered, by name"),
    ), "Every registered bot version (of NAME only, if given), by name then registration."),
    "bot new --list-languages": _list(_obj(
        "One starter of arena bot new.",
        language=_t("string", "the --language that picks it (bot.toml's language)"),
        protocol=_t("string", "what the bot speaks", enum=["grpc", "stdio"]),
        base=_t("string", "the base image its Dockerfile builds on"),
        description=_t("string", "what it builds on"),
    ), "Every language arena bot new writes a starter in."),
    "images list": _list(_obj(
        "One base image.",
        language=_t("string", "bot.toml's language that selects it"),
        image=_t("string", "its tag: name and recipe digest"),
        present=_t("boolean", "whether this host's Docker engine has it"),
        description=_t("string", "what it holds"),
    ), "Every base image bots are built on."),
    "leaderboard": _list(_obj(
        "One entrant of the league.",
        rank=_t("integer", "by mu - 3 sigma, best first", minimum=1),
        bot_id=ID, bot=NAME, version=VERSION,
        author=_t(["string", "null"], "the account that owns it (submitted it over HTTP); null: registered on the "
                                      "command line, the operator's"),
        declared_author=_t("string", "bot.toml's author: the author's own free text, not an identity"),
        language=LANGUAGE,
        exposure=_t("number", "mu - 3 sigma: the conservative rating"),
        mu=_t("number", "TrueSkill's mean"),
        sigma=_t("number", "TrueSkill's standard deviation"),
        games=_t("integer", "stored games it played", minimum=0),
        wins=_t("integer", "games it ranked first in", minimum=0),
        average_score=_t("number", "its mean score per game"),
        failure_rate=_t("number", "the share of its games in which it failed", minimum=0),
        new=_t("boolean", "the newest version of a name with older versions in the league, entered lately"),
        retired=_t("boolean", "retired: it plays no new match"),
        p_first=_t("number", "P(rank 1), drawn from the rating posteriors", minimum=0),
        p_top=_t("number", "P(rank <= top_k)", minimum=0),
        top_k=_t("integer", "the k of p_top: --top, at most the entrants", minimum=1),
        rank_low=_t("integer", "the 90% rank interval's best rank", minimum=1),
        rank_high=_t("integer", "the 90% rank interval's worst rank", minimum=1),
        settled=_t("boolean", "the 90% rank interval is the rank alone"),
    ), "The league's entrants, best mu - 3 sigma first."),
    "league list": _list(_obj(
        "One league or ladder.",
        name=_t("string", "the league's name"),
        format=_t("string", "a round robin, or a ladder that plays without end", enum=list(FORMATS)),
        game=_t("string", "the game's name"),
        players=_t("integer", "players per table", minimum=1),
        settings=_t("object", "the game's settings, complete"),
        schedule=_t("object", "deals, time control and failure policy (never the league's secret)"),
        created_at=_time("when it was created"),
        entrants=_list(_obj("One bot version entered.", bot_id=ID, bot=NAME, version=VERSION), "in entry order"),
    ), "Every league, by name."),
    "league status": {
        "type": "object", "description": "Where a league's run stands: done, left, rate, ETA, failures, matches being "
                                         "played (null: unknown or not applicable; durations in seconds).",
        "required": ["league", "game", "players", "format", "games_per_match", "now", "last_run", "target", "rounds",
                     "cycles", "matches", "games", "rate", "eta", "failures", "running"],
        "additionalProperties": False,
        "properties": {
            "league": _t("string", "the league's name"),
            "game": _t("string", "the game's name"),
            "players": _t("integer", "players per table", minimum=1),
            "format": _t("string", "a round robin, or a ladder", enum=list(FORMATS)),
            "games_per_match": _t("integer", "players x deals", minimum=1),
            "now": _time("when the status was read"),
            "last_run": {"type": ["object", "null"], "required": ["at"], "additionalProperties": False,
                         "description": "what the last run was asked: rounds, until (games) or deadline, or none of "
                                        "them (a ladder without end), and at, when it started; null: none remembered",
                         "properties": {"rounds": _t("integer", "", minimum=1), "until": _t("integer", "", minimum=1),
                                        "deadline": _time(""), "at": _time("")}},
            "target": {"type": ["object", "null"], "required": ["from"], "additionalProperties": False,
                       "description": "what left is measured against: rounds, until or deadline, and from (last_run "
                                      "or option: --rounds); null: no target",
                       "properties": {"rounds": _t("integer", "", minimum=1), "until": _t("integer", "", minimum=1),
                                      "deadline": _time(""), "from": _t("string", "", enum=["last_run", "option"])}},
            "rounds": {"type": ["object", "null"], "required": ["target", "complete", "left"],
                       "additionalProperties": False,
                       "description": "a round robin with a target: the rounds, those with every match stored, and "
                                      "those with matches left; null otherwise",
                       "properties": {"target": _t("integer", "", minimum=1),
                                      "complete": _t(["integer", "null"], "", minimum=0),
                                      "left": _t(["integer", "null"], "", minimum=0)}},
            "cycles": _obj("(table, duplicate cycle) pairs",
                           complete=_t("integer", "pairs with all their matches stored", minimum=0),
                           open=_t("integer", "pairs with some", minimum=0)),
            "matches": _obj("matches",
                            stored=_t("integer", "stored", minimum=0),
                            running=_t("integer", "being played", minimum=0),
                            left=_t(["integer", "null"], "left of the target (null: no round-robin target)", minimum=0),
                            target=_t(["integer", "null"], "in the target (null: no round-robin target)", minimum=0)),
            "games": _obj("games",
                          stored=_t("integer", "stored", minimum=0),
                          in_running=_t("integer", "over in the matches being played", minimum=0),
                          left=_t(["integer", "null"], "left (null: no target)", minimum=0)),
            "rate": _obj("the pace, measured on the stored matches that finished in a window before the latest",
                         games_per_second=_t(["number", "null"], "games a second (null: nothing to measure yet)",
                                             minimum=0),
                         window_seconds=_t("number", "the window", minimum=0),
                         matches=_t("integer", "matches measured", minimum=0),
                         games=_t("integer", "their games", minimum=0),
                         since=_time("the earliest start measured", nullable=True),
                         until=_time("the latest finish measured", nullable=True)),
            "eta": {"type": ["object", "null"], "required": ["seconds", "at", "why"], "additionalProperties": False,
                    "description": "seconds (null: none), at (when), and why: what the ETA is or why there is none",
                    "properties": {"seconds": _t(["number", "null"], "", minimum=0),
                                   "at": _time("", nullable=True), "why": _t("string", "")}},
            "failures": _obj(
                "the seats of stored games that failed",
                seats=_t("integer", "failed seats", minimum=0),
                games=_t("integer", "games with a failed seat", minimum=0),
                by_reason=_t("object", "failed seats by reason (timeout, crash, ...; the reason's text)"),
                by_bot=_list(_obj("One bot with a failure.", bot=_t("string", "its label, NAME@VERSION"),
                                  bot_id=ID, games=_t("integer", "stored games it played", minimum=0),
                                  failures=_t("integer", "its failed seats", minimum=1),
                                  by_reason=_t("object", "its failed seats by reason")), "most failures first"),
            ),
            "running": _list(_obj(
                "One match being played.",
                match=_t("string", "LEAGUE/ROUND/TABLE: what arena watch takes"),
                round=_t("integer", "the schedule's round", minimum=0),
                cycle=_t("integer", "its duplicate cycle", minimum=0),
                table=_t("string", "the table: bot ids"),
                bots=_list(_t("string", "a bot's label, NAME@VERSION"), "in match order"),
                host=_t("string", "the host playing it"),
                pid=_t("integer", "its process there", minimum=0),
                since=_time("when it started"),
                seconds=_t("number", "for how long", minimum=0),
                games=_t("integer", "games in the match", minimum=1),
                games_done=_t(["integer", "null"], "games over (null: records on another host)", minimum=0),
                game=_t(["integer", "null"], "the game being played (null: between games)", minimum=0),
                decisions=_t(["integer", "null"], "its decisions so far", minimum=0),
                record_dir=_t("string", "where its records are written"),
            ), "by round and table"),
        },
    },
    "show game": GAME,
    "show match": _obj(
        "One stored match: its slot, its bots and every game.",
        id=_t("integer", "the match's id", minimum=1),
        league=_t("string", "its league's name"),
        game=_t("string", "the game's name"),
        round=_t("integer", "the schedule's round, from 0", minimum=0),
        cycle=_t("integer", "the table's duplicate cycle, from 0", minimum=0),
        cycle_complete=_t("boolean", "that cycle's matches are all stored: its games are public"),
        bots=_list(_obj("One bot of the table.", bot_id=ID, bot=NAME, version=VERSION, language=LANGUAGE),
                   "in the table's order (the seat rotations start from it)"),
        restarts=_list(_t("integer", "restarts", minimum=0), "how often each bot's container was restarted"),
        record_dir=_t("string", "the folder of its records"),
        started_at=_time("when it started"),
        finished_at=_time("when it finished"),
        games=_list(GAME, "in the order played"),
    ),
    "user list": _list(_obj(
        "One account of the web server.",
        name=_t("string", "the account's name"),
        admin=_t("boolean", "may create and run leagues"),
        created_at=_time("when it was made"),
    ), "Every account, by name."),
}


def schema_of(command: str) -> dict[str, Any]:
    """``command``'s schema as a complete JSON Schema document."""
    return {"$schema": DIALECT, "title": f"arena {command} --json", **SCHEMAS[command]}


def markdown() -> str:
    """The schemas as docs/cli.md shows them: per command a heading and a table of its fields."""
    parts = []
    for command in sorted(SCHEMAS):
        schema = SCHEMAS[command]
        rows = "\n".join(f"| `{path}` | {kind} | {about} |" for path, kind, about in _fields(schema, ""))
        parts.append(f"### `arena {command} --json`\n\n{schema['description']}\n\n"
                     f"| field | type | meaning |\n|---|---|---|\n{rows}\n")
    return "\n".join(parts)


def _fields(schema: dict[str, Any], path: str) -> list[tuple[str, str, str]]:
    """(path, type, meaning) of every field under ``schema``, depth first."""
    if schema["type"] == "array" and schema["items"]["type"] == "object":
        return ([(path + "[]", "array of objects", schema["description"])] if path else []) + \
            _fields(schema["items"], path + "[]")
    if schema["type"] == "object" and "properties" in schema:
        out = []
        for key, item in schema["properties"].items():
            name = f"{path}.{key}" if path else key
            if item["type"] in ("array", "object") and "properties" in item.get("items", item):
                out += _fields(item, name)
            else:
                out.append((name, _kind(item), item["description"]))
        return out
    return [(path, _kind(schema), schema["description"])]


def _kind(schema: dict[str, Any]) -> str:
    kinds = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]
    kind = " or ".join("date-time string" if k == "string" and schema.get("format") == "date-time" else k
                       for k in kinds)
    if kind == "array":
        first, _, rest = _kind(schema["items"]).partition(" ")
        kind = f"array of {first}s" + (f" {rest}" if rest else "")
    if "enum" in schema:
        kind += ": " + " or ".join(f"`{value}`" for value in schema["enum"])
    if "minimum" in schema:
        kind += f" >= {schema['minimum']}"
    return kind


# -- the subset of JSON Schema used above ---------------------------------------------------------
TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "integer": (int,),
                                      "number": (int, float), "boolean": (bool,), "null": (type(None),)}


def validate(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """What is wrong with ``value`` under ``schema`` (the subset above), one sentence per fault."""
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        # bool is an int to Python, never to JSON
        if not any(isinstance(value, TYPES[k]) and not (isinstance(value, bool) and k in ("integer", "number"))
                   for k in kinds):
            return [f"{where}: {type(value).__name__} {value!r:.60} is not {' or '.join(kinds)}"]
    faults = []
    if "enum" in schema and value not in schema["enum"]:
        faults.append(f"{where}: {value!r:.60} is not one of {schema['enum']}")
    if "minimum" in schema and isinstance(value, int | float) and value < schema["minimum"]:
        faults.append(f"{where}: {value} is below {schema['minimum']}")
    if schema.get("format") == "date-time" and isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            faults.append(f"{where}: {value!r:.60} is not a date-time")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        faults += [f"{where}: {key!r} is missing" for key in schema.get("required", []) if key not in value]
        for key, item in value.items():
            if key in properties:
                faults += validate(item, properties[key], f"{where}.{key}")
            elif schema.get("additionalProperties", True) is False:
                faults.append(f"{where}: {key!r} is not allowed")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            faults += validate(item, schema["items"], f"{where}[{i}]")
    return faults


if __name__ == "__main__":  # the docs' section, or with a command's name its JSON Schema
    print(json.dumps(schema_of(" ".join(sys.argv[1:])), indent=2) if sys.argv[1:] else markdown(), end="")
