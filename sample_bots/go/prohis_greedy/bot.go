// A greedy Prohis player that speaks the stdio protocol (JSON lines, docs/protocol.md) with
// nothing but Go's standard library: no gRPC, no kit. Arena's stdio adapter (arena-stdio)
// runs it and talks to the referee for it.
//
// It takes the market card worth most in a warehouse, ships its goods in convoys (at most two
// Illegal Goods hidden among Legal ones) once it holds enough of them, claims inspections of
// big convoys with its cheapest Prohi that wins them, buys off an inspection of contraband
// with a Legal Good, and accepts bribes worth about its Prohi card.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// What each card is worth in a warehouse (docs/games/prohis.md, "Scoring").
var worth = map[string]int{"legal": 1000, "illegal": 4000, "lieutenant": 3000, "captain": 4000, "major": 5000}

var rank = map[string]int{"lieutenant": 1, "captain": 2, "major": 3}

// view holds the fields of the Prohis view that this bot reads.
type view struct {
	Seat         int      `json:"seat"`
	Phase        string   `json:"phase"`
	Hand         []string `json:"hand"`
	Market       []string `json:"market"`
	Convoy       []string `json:"convoy"`
	Bribe        []string `json:"bribe"`
	Offers       int      `json:"offers"`
	EndTriggered bool     `json:"end_triggered"`
	Claims       []struct {
		Seat int    `json:"seat"`
		Rank string `json:"rank"`
	} `json:"claims"`
}

// line is one line of stdin: only decisions carry a view and legal actions.
type line struct {
	Type         string   `json:"type"`
	View         view     `json:"view"`
	LegalActions []string `json:"legal_actions"`
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		text, err := in.ReadBytes('\n')
		if err == io.EOF {
			return // the adapter closes stdin after the match end
		}
		if err != nil {
			fail(err)
		}
		var msg line
		if err := json.Unmarshal(text, &msg); err != nil {
			fail(err)
		}
		switch msg.Type {
		case "decision":
			fmt.Println(decide(&msg.View, msg.LegalActions)) // one write, one line
		case "match_end":
			return
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "prohis-greedy:", err)
	os.Exit(1)
}

func decide(v *view, legal []string) string {
	has := func(action string) bool { return contains(legal, action) }
	var action string
	switch v.Phase {
	case "turn":
		goods := count(v.Hand, "legal") + count(v.Hand, "illegal")
		pick := bestPick(v, has)
		if goods >= 3 || goods >= 2 && (v.EndTriggered || len(v.Hand) >= 7) || pick == "" {
			action = nextConvoyCard(v, has)
		} else {
			action = pick
		}
	case "draw":
		action = bestPick(v, has)
	case "convoy":
		action = nextConvoyCard(v, has)
	case "claim":
		action = "decline"
		best := 0 // the highest rank claimed so far
		for _, c := range v.Claims {
			if rank[c.Rank] > best {
				best = rank[c.Rank]
			}
		}
		for _, r := range []string{"lieutenant", "captain", "major"} {
			if rank[r] > best && has("claim:"+r) && len(v.Convoy) >= 3 {
				action = "claim:" + r
				break
			}
		}
	case "bribe":
		switch {
		case count(v.Convoy, "illegal") == 0:
			action = "silent" // a clean convoy wins the Inspector's Prohi card
		case len(v.Bribe) > 0:
			action = "done"
		case v.Offers == 0 && has("bribe:legal"):
			action = "bribe:legal"
		default:
			action = "silent"
		}
	case "respond":
		offered, prohi := 0, 0
		for _, card := range v.Bribe {
			offered += worth[card]
		}
		for _, c := range v.Claims {
			if c.Seat == v.Seat {
				prohi = worth[c.Rank]
			}
		}
		action = map[bool]string{true: "accept", false: "reject"}[offered >= prohi-1000]
	case "waive":
		action = map[bool]string{true: "inspect", false: "waive"}[len(v.Convoy) >= 3]
	}
	if !has(action) { // flips, and anything this bot did not foresee
		return legal[0]
	}
	return action
}

// bestPick is the market card worth most, when it is worth more than a Legal Good; else a card
// from the pile; else any market card; "" when drawing is not allowed; "done" to stop drawing.
func bestPick(v *view, has func(string) bool) string {
	best, bestWorth := "", worth["legal"]
	for i, card := range v.Market {
		if take := fmt.Sprintf("take:%d", i); has(take) && worth[card] > bestWorth {
			best, bestWorth = take, worth[card]
		}
	}
	for _, fallback := range []string{"pile", "take:0", "done"} {
		if best == "" && has(fallback) {
			best = fallback
		}
	}
	return best
}

// nextConvoyCard adds goods to the convoy, at most two Illegal Goods, a Lieutenant only as
// one of its first two cards, and closes it at four cards or when nothing fits.
func nextConvoyCard(v *view, has func(string) bool) string {
	order := []string{"illegal", "legal", "lieutenant"}
	if count(v.Convoy, "illegal") >= 2 {
		order = []string{"legal", "lieutenant"}
	}
	for _, card := range order {
		if len(v.Convoy) < 4 && has("convoy:"+card) && (card != "lieutenant" || len(v.Convoy) < 2) {
			return "convoy:" + card
		}
	}
	if has("done") {
		return "done"
	}
	return "pass"
}

func count(cards []string, card string) int {
	n := 0
	for _, c := range cards {
		if c == card {
			n++
		}
	}
	return n
}

func contains(texts []string, text string) bool {
	for _, t := range texts {
		if t == text {
			return true
		}
	}
	return false
}
