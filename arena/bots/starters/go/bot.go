// A bot that plays a uniformly random legal action, in any game, seeded by each game's seed.
package main

import (
	"log"
	"math/rand"

	"arena/arenabot"
	"arena/v1/arenapb"
)

type random struct{ rng *rand.Rand }

func (r *random) StartGame(_ *arenapb.MatchStart, game *arenapb.GameStart) {
	r.rng = rand.New(rand.NewSource(int64(game.Seed)))
}

// Decide is where your strategy goes: docs/writing-a-bot.md.
func (r *random) Decide(_ *arenapb.View, _ []*arenapb.Event, legal []string) string {
	return legal[r.rng.Intn(len(legal))]
}

func (r *random) EndGame(*arenapb.GameEnd) {}

func main() {
	if err := arenabot.RunBot(&random{}, "{{name}}", "{{version}}", nil); err != nil {
		log.Fatal(err)
	}
}
