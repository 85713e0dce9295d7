"""How much a bot may use: every limit Arena holds a bot to, in one place (and, last, what a
server holds its authors to).

Each number is enforced where its mechanism lives, named in its section; this file only
says how much. A match spec may change the time limits (``"time"``, ``"max_restarts"``);
nothing a bot or its image says changes any other.
"""

import os

# -- Time: the defaults of a match spec's "time" (referee/spec.py ``TimeControl``), enforced by
# the match loop (referee/match.py). A decision may take DECISION_MS plus what is left of the
# seat's bank for the game plus what is left of the bot's bank for the match; time past
# DECISION_MS comes out of the game bank first, then the match bank. Each decision answered in
# time adds INCREMENT_MS to the game bank (Fischer; uncapped).
STARTUP_MS = 10_000  # to start and say hello
DECISION_MS = 1_000
BANK_MS = 10_000  # per seat, per game
INCREMENT_MS = 0  # added to the game bank after each decision answered in time
MATCH_BANK_MS = 0  # per bot, for the whole match (0: none)
MAX_RESTARTS = 2  # per bot and match: after that a dead bot stays dead (restart_limit)
# to start and say hello in a league's matches (arena/league/schedule.py ``ScheduleOptions``, and
# `arena compare`'s), whose bots are containers
LEAGUE_STARTUP_MS = 15_000
# the most a league created over the web may give (arena/web/leagues.py ``CreateLeague``)
MAX_DECISION_MS = 600_000  # ten minutes
MAX_BANK_MS = 3_600_000  # an hour (a game bank, and a match bank)
MAX_INCREMENT_MS = 60_000  # a minute

# -- The conformance check (arena/bots/check.py ``check_bot``: `arena bot check`, and every
# submission). It plays one game per game and player count: at the smallest count at the time
# control itself with a CPU hog on the match's core (that game judges the bot's time), the
# others with CHECK_SLACK times its decision time (they judge what the bot does, even on a busy
# machine); each bot with this long to start, and then to exit after MatchEnd (MatchSpec.shutdown_ms).
CHECK_STARTUP_MS = 15_000
CHECK_SLACK = 5
CHECK_SHUTDOWN_MS = 2_000  # to exit by itself with code 0
CHECK_RESTARTS = 0  # a bot that dies during the check fails it: it is not started again

# -- The wire (referee/transport.py): refused by gRPC beyond these.
MAX_BOT_MESSAGE = 64 * 1024  # a Hello or a Reply is tiny
MAX_REFEREE_MESSAGE = 16 * 1024 * 1024
LOG_CAP = 1024 * 1024  # bytes of a bot's stdout+stderr kept per match
# A reply's optional debug text (referee/debug.py, on its way into the game's record): bytes of
# UTF-8 kept per decision, and of one seat's debug text in one game; past the first it is cut,
# past the second dropped, each with a marker saying so, never a failure. The kits cut theirs to
# DEBUG_SEND_BYTES before sending, so that a reply always fits in MAX_BOT_MESSAGE and the
# referee still sees that it was longer (a test holds their numbers to these).
DEBUG_BYTES = 1024
DEBUG_GAME_BYTES = 256 * 1024
DEBUG_SEND_BYTES = 4 * 1024
# ... and past the cap, read from a container (referee/output.py) at most this many bytes a second,
# of which only the last lines are kept: a bot that writes faster waits in its writes
LOG_RATE = 1024 * 1024

# -- The container (referee/sandbox.py ``SandboxProfile``): no network, read-only root, no
# capabilities, a non-root user; and these amounts.
MEMORY_MB = 512  # and the same for memory+swap: no swap at all
CPUS = 1.0
PIDS = 64  # processes and threads
TMPFS_MB = 64  # /tmp, the only writable place
SHM_MB = 8
FILE_SIZE_MB = 64  # ulimit fsize: no single file larger than this
OPEN_FILES = 256
DOCKER_LOG_MAX = "1m"  # docker's json-file log, one file: only arena-init's own errors reach it

# -- Fairness (referee/fairness.py): CPU a bot may use while another seat is asked. Over
# WINDOW_SHARE of a 10 ms window (a spinner), or over BUDGET_S + TAIL_S per turn it had in
# the whole match (a trickle), and it is frozen whenever it is not asked. A well-behaved
# bot's only off-turn CPU is the tail of each reply, about 20 µs a turn for a Python bot.
WINDOW_SHARE = 0.2
BUDGET_S = 0.02
TAIL_S = 0.0002

# -- The build (arena/bots/build.py ``BuildLimits``): no network, the context confined to the bot
# folder; each RUN step a container with these limits, pids for the whole build.
BUILD_TIMEOUT_S = 600
MAX_IMAGE_MB = 1024
BUILD_MEMORY_MB = 1024  # and the same for memory+swap
BUILD_PIDS = 256
BUILD_CPUS = 1.0
BUILD_CPU_SHARES = 512  # half a default container's weight: running matches come first
# bot.toml (arena/bots/config.py ``load_bot_config``): read as hostile input, each value bounded
BOT_TOML_KB = 64  # the file
BUILD_ARGS = 64  # [build] args: how many
BUILD_ARG_CHARS = 4096  # of each of their values

# -- Uploads (arena/bots/upload.py): a bot folder sent to an Arena server as a .tar.gz or a
# .zip. Counted while the request is read and while the archive is unpacked (real bytes, not
# what its headers say); over any of these, the upload is refused and nothing stays on disk.
UPLOAD_MB = 20  # packed: the archive as sent
UNPACKED_MB = 200  # every file's bytes, unpacked
UPLOAD_FILES = 5_000  # entries: files, folders and links
UPLOAD_PATH_DEPTH = 32  # folders deep
UPLOAD_PATH_CHARS = 1024  # of a path inside the archive; and 255 bytes a name, as on Linux
SUBMISSION_LOG_KB = 256  # of a submission's build log, and of its check report, kept on the server
AUTHOR_CHARS = 64  # bot.toml's author: free text, shown under the bot's name (its author is its account)
OWNER_LABEL_CHARS = 32  # of the owner shown on boards (arena/owners.py): longer names are cut, with an ellipsis

# -- Accounts of a server (arena/accounts.py; docs/api.md, "Signing up"). A new password is refused
# when shorter than PASSWORD_MIN_CHARS, longer than PASSWORD_MAX_CHARS (argon2 hashes what it is
# given: a megabyte of password is a megabyte hashed), the account's name, or a common password.
PASSWORD_MIN_CHARS = 10
PASSWORD_MAX_CHARS = 1024
INVITE_USES = 1  # sign-ups an invite code allows, unless its admin says more
INVITE_DAYS = 7  # an invite code works this long, unless its admin says otherwise
INVITE_MAX_USES = 10_000
INVITE_MAX_DAYS = 365
TOKENS_PER_ACCOUNT = 50  # API tokens an account holds at once; past it, revoke one to make another

# -- Quotas of a server (the defaults of arena/web/app.py ``WebSettings``, and of `arena serve`'s
# options; enforced by arena/web/quotas.py and the build queue, arena/web/submissions.py). An
# author over one is answered 429 (413 for an upload that could never fit), told what to do,
# and nothing of the upload is kept. The build time per submission is BUILD_TIMEOUT_S.
UNPACKS_AT_ONCE = 2  # uploads being unpacked at once, every author's together; the others wait
UNPACK_WAIT_S = 30  # for one of those, then 429
UPLOADS_IN_FLIGHT_MB = 1024  # unpacked and not yet built (queued or building), every author's together
QUEUED_PER_AUTHOR = 3  # an author's submissions not finished yet (queued, building, checking)
SUBMISSIONS_PER_DAY = 20  # an author's submissions in any 24 hours
# builds (and their checks) at once: half this machine's cores, at least 2, at most 8. Each build
# is held to BUILD_CPUS at half a match's CPU weight; an author's take at most all but one of them.
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2
BUILDS_AT_ONCE = max(2, min(8, _CORES // 2))

# -- Notifications (arena/notifications.py, arena/webhooks.py; docs/api.md "Notifications").
NOTIFICATION_CHARS = 1000  # of a notification's text (a refusal's reason is cut there; the page has it all)
INBOX_SHOWN = 200  # the newest notifications an inbox lists
FEED_ENTRIES = 50  # the newest notifications an account's Atom feed holds
# a bot failing in FAILURE_ALERT_SHARE or more of its last FAILURE_WINDOW games of a league (once it
# has played FAILURE_MIN_GAMES there): its owner is told once, and again only after it recovered
FAILURE_WINDOW = 20
FAILURE_MIN_GAMES = 10
FAILURE_ALERT_SHARE = 0.3
RANK_NOTICE_S = 3600  # a ladder that runs on tells owners of rank changes at most this often
WEBHOOKS_PER_ACCOUNT = 5
WEBHOOK_URL_CHARS = 2000
WEBHOOK_TIMEOUT_S = 5.0  # a delivery's whole request: connecting, sending, the answer's head
WEBHOOK_ATTEMPTS = 8  # a delivery is tried this often, then marked failed
WEBHOOK_RETRY_S = 30.0  # the first retry's wait; each next one waits twice as long (30 s ... 64 min)
WEBHOOK_SENDERS = 2  # deliveries sent at once by a server
# -- Scrimmages (unrated matches an author asks for: arena/scrimmage.py; the defaults of
# ``WebSettings`` and of `arena serve`'s options). Over a quota: 429 and when to try again.
SCRIMMAGE_MAX_GAMES = 64  # games of one scrimmage at most (one duplicate cycle of k players is k*k games)
SCRIMMAGE_GAMES_PER_DAY = 200  # an account's scrimmage games in any 24 hours (a scrimmage of N counts N)
SCRIMMAGES_PENDING_PER_AUTHOR = 2  # an account's scrimmages queued or being played
SCRIMMAGES_AT_ONCE = 1  # scrimmages played at once on the server (each plays one match at a time); the rest wait
