"""What a failed build step that reached for the network is told: builds have no network (see
:mod:`arena.bots.build`), so a package manager's download fails with its own message, which
never says so. :func:`offline_hint` reads the failed step (its command and its output) and
names what to vendor into the bot folder instead."""

from __future__ import annotations

import re

DOCS = "docs/writing-a-bot.md, \"Builds are offline and sandboxed\""
STEP = re.compile(r"Step \d+/\d+ : (.*)")
SCANNED, SCANNED_LINES = 1000, 200  # characters of a line, and the failed step's last lines, read for the hint

# (tool, a command that only downloads, a command that may download, what to vendor). A failed
# step whose command only downloads failed for want of the network, whatever it printed (apt as
# the base's user fails on its lock first, as root on its empty package lists; the bases have no
# npm or pip at all); one that may download (a build) did so only if its output says so.
Tool = tuple[str, re.Pattern[str], re.Pattern[str], str]
OPTS = r"(\S+\s+)*"  # options between the tool and its verb
TOOLS: tuple[Tool, ...] = (
    ("apt", re.compile(rf"\b(apt-get|apt|aptitude)\s+{OPTS}(install|update|upgrade|dist-upgrade|source)\b"),
     re.compile(r"\bdpkg\b"),
     "the files your bot needs from those packages (or their .deb files, installed with `dpkg -i`)"),
    ("pip", re.compile(rf"\bpip[0-9.]*\s+{OPTS}(install|download)\b(?!.*--no-index)|\b(poetry|uv|pipenv)\s+"),
     re.compile(r"\bpip[0-9.]*\b|\bsetup\.py\b"),
     "the wheels (`pip download -d wheels ...` on your machine; the Python base has no pip: unzip them into "
     "a folder on PYTHONPATH)"),
    ("npm", re.compile(rf"\b(npm|yarn|pnpm)\s+{OPTS}(install|ci|add|i)\b|\bnpx\b"), re.compile(r"\bnpm\b"),
     "node_modules (`npm ci` on your machine)"),
    ("go", re.compile(r"\bgo\s+(get|mod\s+download)\b"), re.compile(r"\bgo\s+(build|install|run|mod|test)\b"),
     "the packages' source in GOPATH layout (src/...: the Go base builds with GO111MODULE=off)"),
    ("cargo", re.compile(r"\bcargo\s+(fetch|install)\b|\brustup\b"),
     re.compile(r"\bcargo\b"),
     "a binary built on your machine (static, for musl), or the crates (`cargo vendor`)"),
)
# Output that says the network was reached for and not there: resolver, connection and the
# package managers' own words for it. apt's "Unable to locate package" is what an install says
# with no package lists, which only a download (apt-get update) brings.
NETWORK = re.compile("|".join([
    r"Temporary failure (in name )?resolv", r"Could not resolve", r"Name or service not known", r"no such host",
    r"getaddrinfo", r"EAI_AGAIN", r"ENOTFOUND", r"ENETUNREACH", r"ECONNREFUSED", r"[Nn]etwork is unreachable",
    r"Failed to establish a new connection", r"NewConnectionError", r"Failed to fetch", r"Unable to locate package",
    r"Package '?\S+'? has no installation candidate", r"No matching distribution found",
    r"Could not find a version that satisfies", r"dial tcp", r"spurious network error", r"failed to download",
    r"Couldn't resolve host", r"unable to access 'https?:", r"network request to \S+ failed", r"bad address",
    r"connection timed out", r"Connection refused",
]))


def offline_hint(log: list[str]) -> str:
    """The sentence to end a failed build's message with ("" if its failed step does not look
    like it reached for the network): which tool, and what to vendor instead. ``log``: the
    build's output lines, the failed step's last."""
    starts = [i for i, line in enumerate(log) if STEP.match(line)]
    if not starts:
        return ""
    # bounded: the build's output is the author's, and a regex over a megabyte line takes long
    command = STEP.match(log[starts[-1]])[1][:SCANNED]  # type: ignore[index]  # matched just above
    output = "\n".join(line[:SCANNED] for line in log[starts[-1] + 1:][-SCANNED_LINES:])
    network = NETWORK.search(output)
    tool = next(((name, vendor) for name, fetch, uses, vendor in TOOLS
                 if fetch.search(command) or uses.search(command) and network), None)
    if tool is None:
        return f"\nbuilds have no network: vendor what this step downloads in your folder ({DOCS})" if network else ""
    name, vendor = tool
    return f"\nbuilds have no network ({name} cannot download anything): vendor {vendor} in your folder ({DOCS})"
