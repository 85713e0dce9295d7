"""The ``arena`` command. Each group of commands lives in its own module, imported only when
that command runs (or is completed): a Tab in the shell or ``arena --help`` should not wait
for the store, Docker, gRPC and the web server's libraries to load."""

from __future__ import annotations

import importlib

import click
from click.shell_completion import CompletionItem

from . import completion  # noqa: F401  (light; registers the bash completion that reads BOT@VERSION whole)

# command name -> "module:attribute" under arena.cli, in the order `arena --help` lists them
COMMANDS = {
    "play": "play:play",
    "match": "match:match",
    "replay": "replay:replay",
    "images": "images:images",
    "bot": "bot:bot",
    "kit": "kit:kit",
    "doctor": "doctor:doctor",
    "league": "league:league",
    "ratings": "ratings:ratings",
    "leaderboard": "ratings:leaderboard",
    "show": "show:show",
    "demo": "demo:demo",
    "serve": "serve:serve",
    "user": "user:user",
    "team": "team:team",
    "audit": "audit:audit",
    "ladder": "ladder:ladder",
    "bundle": "bundle:bundle",
    "compare": "compare:compare",
    "worker": "worker:worker",
    "watch": "watch:watch",
    "scrimmage": "scrimmage:scrimmage",
    "completion": "completion:completion",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (click's documented lazy-loading pattern)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, _, attribute = COMMANDS[name].partition(":")
        return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Command names without importing every command (click would, for their help texts)."""
        if incomplete.startswith("-"):
            return super().shell_complete(ctx, incomplete)
        return [CompletionItem(name) for name in COMMANDS if name.startswith(incomplete)]


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
def main() -> None:
    """Arena: AI tournaments for hidden-information card games."""
