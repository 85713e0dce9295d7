package arenabot

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Word is an enum value as the protocol's texts and docs/games spell it: the lower-case
// words after the enum type's prefix. Word(arenapb.ProhisCard_PROHIS_CARD_ILLEGAL) is
// "illegal", as in the action "convoy:illegal".
func Word(value protoreflect.Enum) string {
	enum := value.Descriptor()
	known := enum.Values().ByNumber(value.Number())
	if known == nil { // a value newer than this code
		return strconv.Itoa(int(value.Number()))
	}
	return strings.ToLower(strings.TrimPrefix(string(known.Name()), upperSnake(string(enum.Name()))+"_"))
}

// upperSnake turns a type name such as ProhisCard into PROHIS_CARD.
func upperSnake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && 'A' <= r && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}
