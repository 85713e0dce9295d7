// Package arenabot is the Go bot kit of Arena: the client loop every Go bot runs.
//
//	func decide(view *arenapb.View, events []*arenapb.Event, legal []string) string {
//		return legal[0]
//	}
//
//	func main() {
//		if err := arenabot.Run(decide, "first-legal", "1.0.0", nil); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// The view is the generated message of package arenapb (protos/arena/v1, docs/games/): the
// game's view is in its oneof (view.GetProhis(), ...). Legal actions are their texts, such as
// "take:2"; return one of them. For memory across decisions and games, implement Bot and call
// RunBot. Debugf while deciding keeps a note with the decision, shown to the bot's owner beside
// it in the replay.
package arenabot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"arena/v1/arenapb"

	"google.golang.org/grpc"
)

// ProtocolVersion is the version of the protocol this kit speaks, stated in the Hello.
const ProtocolVersion = uint32(arenapb.ProtocolVersion_PROTOCOL_VERSION_1)

// The referee sends at most 16 MiB per message.
const maxReceive = 16 << 20

// Bot is a bot with memory across decisions and games.
type Bot interface {
	// StartGame is called at the start of each game: match holds the game's name and
	// settings, game the seat, the players and the seed for the bot's own random choices.
	StartGame(match *arenapb.MatchStart, game *arenapb.GameStart)
	// Decide returns one of legal: events are what happened since the seat's last decision.
	Decide(view *arenapb.View, events []*arenapb.Event, legal []string) string
	// EndGame is called at the end of each game, with every seat's score, rank and failure.
	// The process is stopped as soon as the referee is done with it, so the last call may not
	// get to run.
	EndGame(end *arenapb.GameEnd)
}

// DecideFunc is a Bot without memory: only its decisions.
type DecideFunc func(view *arenapb.View, events []*arenapb.Event, legal []string) string

// StartGame does nothing.
func (DecideFunc) StartGame(*arenapb.MatchStart, *arenapb.GameStart) {}

// Decide calls f.
func (f DecideFunc) Decide(view *arenapb.View, events []*arenapb.Event, legal []string) string {
	return f(view, events, legal)
}

// EndGame does nothing.
func (DecideFunc) EndGame(*arenapb.GameEnd) {}

// Run plays a whole match with decide as the seat at $ARENA_SOCKET; see RunBot.
func Run(decide DecideFunc, name, version string, games []string) error {
	return RunBot(decide, name, version, games)
}

// RunBot plays a whole match as the seat at $ARENA_SOCKET (a unix:// address) and returns
// nil once the referee ends it. games lists the games the bot plays (nil: every game).
func RunBot(bot Bot, name, version string, games []string) error {
	address := os.Getenv("ARENA_SOCKET")
	if address == "" {
		return errors.New("ARENA_SOCKET is not set: the referee passes the socket address in it")
	}
	// No keepalive pings (the referee counts them as strikes), and windows that hold the
	// largest message, which also turns off the flow-control pings that size windows.
	conn, err := grpc.Dial(address, grpc.WithInsecure(),
		grpc.WithInitialWindowSize(maxReceive), grpc.WithInitialConnWindowSize(maxReceive),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxReceive), grpc.ForceCodec(codec{})))
	if err != nil {
		return fmt.Errorf("arenabot: connecting to %s: %w", address, err)
	}
	defer conn.Close()
	stream, err := arenapb.NewRefereeClient(conn).Play(context.Background())
	if err != nil {
		return fmt.Errorf("arenabot: opening the stream: %w", err)
	}
	hello := &arenapb.Hello{Name: name, Version: version, ProtocolVersion: ProtocolVersion, Games: games}
	if err := stream.Send(&arenapb.BotMessage{Message: &arenapb.BotMessage_Hello{Hello: hello}}); err != nil {
		return fmt.Errorf("arenabot: sending the hello: %w", err)
	}
	match := &arenapb.MatchStart{}
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("arenabot: %w", err)
		}
		switch m := msg.Message.(type) {
		case *arenapb.RefereeMessage_Decision:
			if err := stream.Send(reply(bot, m.Decision)); err != nil {
				return fmt.Errorf("arenabot: sending a reply: %w", err)
			}
		case *arenapb.RefereeMessage_MatchStart:
			match = m.MatchStart
		case *arenapb.RefereeMessage_GameStart:
			bot.StartGame(match, m.GameStart)
		case *arenapb.RefereeMessage_GameEnd:
			bot.EndGame(m.GameEnd)
		case *arenapb.RefereeMessage_MatchEnd:
			return stream.CloseSend()
		}
	}
}

// reply asks bot for its action and answers with the request's own Action for it.
func reply(bot Bot, request *arenapb.DecisionRequest) *arenapb.BotMessage {
	legal := make([]string, len(request.LegalActions))
	for i, action := range request.LegalActions {
		legal[i] = action.Text
	}
	choice := bot.Decide(request.View, request.Events, legal)
	action := &arenapb.Action{Text: choice}
	if i := index(legal, choice); i >= 0 {
		action = request.LegalActions[i]
	} else { // sent anyway: the referee judges
		fmt.Fprintf(os.Stderr, "arenabot: %q is not among the legal actions\n", choice)
	}
	r := &arenapb.Reply{DecisionId: request.DecisionId, Action: action, Debug: takeDebug()}
	return &arenapb.BotMessage{Message: &arenapb.BotMessage_Reply{Reply: r}}
}

func index(texts []string, text string) int {
	for i, t := range texts {
		if t == text {
			return i
		}
	}
	return -1
}
