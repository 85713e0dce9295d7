#!/bin/sh
# Plays a uniformly random legal action, in any game: the stdio protocol in plain sh, no JSON parser.
# Each line on stdin is one message; a decision's second key, "legal", lists its actions.
set -f  # no file name globbing when the list is split into words
r=1
while IFS= read -r line; do
    case $line in
    '{"type": "game_start"'*)  # seed the generator with the game's seed (its first 9 digits)
        seed=${line#*\"seed\": }
        r=$(printf '%.9s' "${seed%%[!0-9]*}") ;;
    '{"type": "decision"'*)
        legal=${line#*\"legal\": \"}
        set -- ${legal%%\"*}  # the legal actions, as $1 $2 ...
        r=$(( (r * 1103515245 + 12345) % 2147483648 ))
        shift $(( r / 65536 % $# ))
        printf '%s\n' "$1" ;;  # exactly one line per decision
    esac
done
