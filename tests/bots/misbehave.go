// A Go bot that misbehaves on purpose, for the tests: `misbehave panic` panics in its first
// decision, `misbehave illegal` answers every decision with an action that is not legal. And one
// that behaves: `misbehave debug` plays the first legal action and says "go seat S decision N:
// ACTION" with arenabot.Debugf (N counted in the game); at every third decision control codes and
// a byte that is not UTF-8 besides, at every fifth 3000 more bytes.
package main

import (
	"log"
	"os"
	"strings"

	"arena/arenabot"
	"arena/v1/arenapb"
)

type debugger struct {
	seat   uint32
	number int
}

func (d *debugger) StartGame(_ *arenapb.MatchStart, game *arenapb.GameStart) {
	d.seat, d.number = game.Seat, 0
}

func (d *debugger) Decide(_ *arenapb.View, _ []*arenapb.Event, legal []string) string {
	d.number++
	arenabot.Debugf("go seat %d decision %d: %s", d.seat, d.number, legal[0])
	if d.number%3 == 0 {
		arenabot.Debugf("%s", "\x1b[2J\rforged\u202eevil\xff")
	}
	if d.number%5 == 0 {
		arenabot.Debugf("%s", strings.Repeat("z", 3000))
	}
	return legal[0]
}

func (d *debugger) EndGame(*arenapb.GameEnd) {}

func main() {
	mode := os.Args[1]
	if mode == "debug" {
		if err := arenabot.RunBot(&debugger{}, "go-debugger", "1.0.0", nil); err != nil {
			log.Fatal(err)
		}
		return
	}
	decide := func(view *arenapb.View, _ []*arenapb.Event, legal []string) string {
		if mode == "panic" {
			panic("misbehave: a bug in the bot")
		}
		return "flip:99"
	}
	if err := arenabot.Run(decide, "go-misbehave", "1.0.0", nil); err != nil {
		log.Fatal(err)
	}
}
