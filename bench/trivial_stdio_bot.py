"""The stdio twin of ``trivial_bot.py --kit``: it reads each line as JSON, as a stdio bot in
Python would, and answers each decision with its first legal action, so that the round trip
against the kit bot's is what the stdio adapter adds."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "decision":
        sys.stdout.write(message["legal_actions"][0] + "\n")
        sys.stdout.flush()
