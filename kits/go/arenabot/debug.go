package arenabot

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DebugSendBytes is the most of a decision's debug text the kit sends, in bytes of UTF-8: the
// referee keeps 1 KiB of it and says it cut the rest (referee/limits.py DEBUG_SEND_BYTES; a
// test holds them together).
const DebugSendBytes = 4 * 1024

var said strings.Builder // what Debugf said since the last reply

// Debugf adds a line, formatted as fmt.Sprintf does, to the debug text sent with the next
// reply: the referee keeps it with that decision in the game's record, and the replay shows it
// beside the decision, to the bot's owner alone; no other seat is ever sent it. Past 4 KiB a
// decision more is dropped here (the referee keeps 1 KiB, and 256 KiB a game).
func Debugf(format string, args ...any) {
	if said.Len() > DebugSendBytes {
		return
	}
	if said.Len() > 0 {
		said.WriteByte('\n')
	}
	fmt.Fprintf(&said, format, args...)
}

// takeDebug returns what was said since the last call: valid UTF-8 (a protobuf string must be;
// invalid bytes become U+FFFD), at most DebugSendBytes, cut at a character.
func takeDebug() string {
	if said.Len() == 0 {
		return ""
	}
	text := strings.ToValidUTF8(said.String(), "\uFFFD")
	said.Reset()
	if len(text) <= DebugSendBytes {
		return text
	}
	end := DebugSendBytes
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[:end]
}
