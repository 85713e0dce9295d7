"""Shell completion (bash, zsh, fish) through click's own mechanism: ``_ARENA_COMPLETE=bash_source
arena`` prints the script, which then asks ``_ARENA_COMPLETE=bash_complete arena`` at each Tab.

Besides command and option names, league and bot names complete from the store that the command
would open (its ``--db``, else $ARENA_DB, else sqlite:///runs/arena.db). Completion reads only:
a missing store completes nothing, no database is created or migrated, and any error is
swallowed (a Tab must never print a traceback into someone's prompt).

Only names a shell reads back as the same single argument are offered (:data:`SAFE`): league
names are free text, and bash inserts a completion as it is, unquoted, so a name holding a
space, a quote, ``;``, ``$`` or a control character would become other words or another command
on the user's line; one starting with ``-`` would be read as an option.
"""

from __future__ import annotations

import os
import re
import sqlite3
import warnings
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import click
from click.shell_completion import (
    BashComplete,
    CompletionItem,
    add_completion_class,
    get_completion_class,
    split_arg_string,
)

SAFE = re.compile(r"[\w.@+-]+")  # letters (any script), digits, _ . @ + -: nothing a shell splits or expands
SHELLS = ("bash", "zsh", "fish")
BASH_WORDBREAKS = " \t\n\"'@><=;|&(:"  # bash's default COMP_WORDBREAKS


def safe(name: str) -> bool:
    return bool(SAFE.fullmatch(name)) and not name.startswith("-")


def _db_url(ctx: click.Context) -> str:
    from ..store import store_url

    return store_url(ctx.params.get("db_url"))  # --db if typed before the cursor; else as the command does


def _read(url: str, query: Callable[[Any], list]) -> list:
    """``query(connection)`` on the store at ``url``, read only; [] when there is none or it fails."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a warning on stderr would land in the user's prompt
            parsed = make_url(url)
            if parsed.get_backend_name() == "sqlite":
                if not parsed.database or parsed.database == ":memory:" or not os.path.isfile(parsed.database):
                    return []
                path = quote(os.path.abspath(parsed.database))

                def connect() -> sqlite3.Connection:
                    # mode=rw never creates a file (unlike a plain connect) and, unlike mode=ro, lets the
                    # last connection of a WAL store clean up its -wal and -shm files on close
                    try:
                        return sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=1)
                    except sqlite3.OperationalError:  # a store we may only read
                        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)

                engine = create_engine("sqlite://", creator=connect)
            else:
                engine = create_engine(url, connect_args={"connect_timeout": 2}
                                       if parsed.get_backend_name() == "postgresql" else {})
            try:
                with engine.connect() as connection:
                    return query(connection)
            finally:
                engine.dispose()
    except Exception:  # anything at all: completion offers nothing rather than fail loudly
        return []


def complete_leagues(kind: str | None = None) -> Callable[[click.Context, click.Parameter, str], list[CompletionItem]]:
    """Completes a league's name; ``kind`` "ladder" keeps only ladders, "league" every other format."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        from sqlalchemy import select

        from ..store import League

        rows = _read(_db_url(ctx), lambda c: list(c.execute(
            select(League.name, League.game, League.players, League.schedule).order_by(League.name))))
        items = []
        for name, game, players, schedule in rows:
            form = schedule.get("format", "round-robin") if isinstance(schedule, dict) else "round-robin"
            wanted = kind is None or form == kind or (kind == "league" and form != "ladder")
            if wanted and name.startswith(incomplete) and safe(name):
                # shown beside the name by zsh and fish: no comma (fish splits there), nothing unsafe
                shown = "" if form == "round-robin" else f" {form}"
                help = f"{game} {players} players{shown}" if safe(game) and safe(form) else None
                items.append(CompletionItem(name, help=help))
        return items

    return complete


def complete_bots(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Completes a registered bot: NAME (its newest version) and NAME@VERSION, newest first."""
    from sqlalchemy import select

    from ..store import Bot

    rows = _read(_db_url(ctx), lambda c: list(c.execute(
        select(Bot.name, Bot.version, Bot.language).order_by(Bot.name, Bot.id.desc()))))
    items: dict[str, CompletionItem] = {}
    for name, version, language in rows:
        help = language if safe(language) else None
        for label in (name, f"{name}@{version}"):
            if label not in items and label.startswith(incomplete) and safe(label):
                items[label] = CompletionItem(label, help=help)
    return list(items.values())


class ArenaBashComplete(BashComplete):
    """click's bash completion, which also hands Python the command line as typed.

    bash splits the words it gives a completion function at every character of COMP_WORDBREAKS,
    ``@`` and ``:`` included: ``random@1`` arrives as three words, and a reply replaces only the
    ``@1``. So the words are read from COMP_LINE up to COMP_POINT instead, and each reply is cut
    to the part that replaces readline's word (what bash-completion's ``__ltrim_colon_completions``
    does for ``:``), so that BOT@VERSION completes."""

    # (tests/cli/test_completion.py checks that the variables made it into the script)
    source_template = BashComplete.source_template.replace(
        "COMP_CWORD=$COMP_CWORD ",
        'COMP_CWORD=$COMP_CWORD COMP_LINE="$COMP_LINE" COMP_POINT=$COMP_POINT COMP_WORDBREAKS="$COMP_WORDBREAKS" ', 1)
    cut = ""  # the start of the current word that readline keeps: replies drop it

    def get_completion_args(self) -> tuple[list[str], str]:
        line, point = os.environ.get("COMP_LINE"), os.environ.get("COMP_POINT", "")
        if line is None or not point.isdigit():
            return super().get_completion_args()
        words = split_arg_string(line[:int(point)] + "\x01")  # the mark ends the word under the cursor
        incomplete = words.pop()[:-1] if words else ""
        breaks = [c for c in os.environ.get("COMP_WORDBREAKS", BASH_WORDBREAKS) if not c.isspace() and c not in "\"'"]
        at = max((incomplete.rfind(c) for c in breaks), default=-1)
        # readline's word starts after that break, or at it for bash's rl_special_prefixes ($ and @)
        self.cut = incomplete[:at if at >= 0 and incomplete[at] in "$@" else at + 1]
        return words[1:], incomplete

    def format_completion(self, item: CompletionItem) -> str:
        if item.type == "plain" and self.cut and item.value.startswith(self.cut):
            item = CompletionItem(item.value[len(self.cut):], type=item.type, help=item.help)
        return super().format_completion(item)


add_completion_class(ArenaBashComplete, "bash")  # replaces click's own for every `arena` run


INSTALL = """Print the completion script of SHELL (bash, zsh or fish) for `arena`: command and
option names, league names and bot names (NAME, NAME@VERSION) from the store the command
would use (--db typed before, else $ARENA_DB, else runs/arena.db).

\b
bash: add to ~/.bashrc
    eval "$(arena completion bash)"
  or save it once:
    arena completion bash > ~/.local/share/bash-completion/completions/arena
zsh: add to ~/.zshrc, after compinit
    eval "$(arena completion zsh)"
fish:
    arena completion fish > ~/.config/fish/completions/arena.fish

The same scripts come from click's own variable: _ARENA_COMPLETE=bash_source arena (zsh_source,
fish_source). Each Tab runs `arena` once, so it takes as long as `arena --help` does.
"""


@click.command(help=INSTALL)
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    root = ctx.find_root()
    prog = root.info_name or "arena"
    complete_var = f"_{prog}_COMPLETE".replace("-", "_").upper()  # as click names it
    complete = get_completion_class(shell)
    assert complete is not None  # click.Choice(SHELLS): one click knows
    script = complete(root.command, {}, prog, complete_var).source()
    click.echo(script, nl=False)
