// A Go bot that misbehaves on purpose, for the tests: `misbehave panic` panics in its first
// decision, `misbehave illegal` answers every decision with an action that is not legal.
package main

import (
	"log"
	"os"

	"arena/arenabot"
	"arena/v1/arenapb"
)

func main() {
	mode := os.Args[1]
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
