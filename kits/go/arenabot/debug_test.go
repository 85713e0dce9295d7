package arenabot

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDebugTextIsSentWholeLinesValidAndCut(t *testing.T) {
	Debugf("hand %v", []string{"legal"})
	Debugf("take %d", 2)
	if got := takeDebug(); got != "hand [legal]\ntake 2" {
		t.Errorf("takeDebug() = %q", got)
	}
	if got := takeDebug(); got != "" {
		t.Errorf("said twice: %q", got)
	}
	Debugf("%s", "bad \xff byte")
	if got := takeDebug(); got != "bad \uFFFD byte" {
		t.Errorf("invalid UTF-8 sent as %q", got)
	}
	for i := 0; i < 100000; i++ { // a call in a loop keeps no more than the cap
		Debugf("%s", strings.Repeat("é", 50))
	}
	got := takeDebug()
	if len(got) > DebugSendBytes || len(got) < DebugSendBytes-1 || !utf8.ValidString(got) {
		t.Errorf("%d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
