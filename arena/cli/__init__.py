"""The ``arena`` command. Each group of commands lives in its own module."""

from __future__ import annotations

import click

from . import (
    bot,
    bot_new,
    bundle,
    compare,
    completion,
    demo,
    doctor,
    images,
    ladder,
    league,
    match,
    play,
    ratings,
    replay,
    serve,
    show,
    user,
    watch,
    worker,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
def main() -> None:
    """Arena: AI tournaments for hidden-information card games."""


main.add_command(play.play)
main.add_command(match.match)
main.add_command(replay.replay)
main.add_command(images.images)
main.add_command(bot.bot)
main.add_command(doctor.doctor)
main.add_command(league.league)
main.add_command(ratings.ratings)
main.add_command(ratings.leaderboard)
main.add_command(show.show)
main.add_command(demo.demo)
main.add_command(serve.serve)
main.add_command(user.user)
main.add_command(ladder.ladder)
main.add_command(bundle.bundle)
main.add_command(compare.compare)
main.add_command(worker.worker)
main.add_command(watch.watch)
main.add_command(completion.completion)
bot.bot.add_command(bot_new.new)
