package arenabot

import (
	"testing"

	"arena/v1/arenapb"

	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestWordIsTheProtocolsText(t *testing.T) {
	for _, c := range []struct {
		value protoreflect.Enum
		want  string
	}{
		{arenapb.ProhisCard_PROHIS_CARD_ILLEGAL, "illegal"},
		{arenapb.ProhisPhase_PROHIS_PHASE_TURN, "turn"},
		{arenapb.BanditsCard_BANDITS_CARD_BOOBY_TRAP, "booby_trap"},
		{arenapb.BanditsEventType_BANDITS_EVENT_TYPE_TAKE_HAND, "take_hand"},
		{arenapb.ProhisCard(99), "99"},
	} {
		if got := Word(c.value); got != c.want {
			t.Errorf("Word(%v) = %q, want %q", c.value, got, c.want)
		}
	}
}
