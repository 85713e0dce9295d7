// arenabot: Arena's C++ bot kit. Write a decide function (or a Bot), and run() plays the match:
//
//   #include <arenabot/arenabot.h>
//
//   int main() {
//     return arenabot::run([](const arena::v1::View& view, const arenabot::Events& events,
//                             const std::vector<std::string>& legal_actions) { return legal_actions[0]; },
//                          "first-legal", "1.0.0");
//   }
//
// The view is the protocol's typed message (view.prohis(), view.sobek(), ...: protos/arena/v1/ and
// docs/games/), the events are what happened since your last decision, and the legal actions are
// their texts ("take:2", "convoy:illegal", "done"): return one of them. arenabot::debug() while
// deciding keeps a note with the decision, shown to the bot's owner beside it in the replay. Build with
//   g++ -O2 -o bot bot.cpp $(pkg-config --cflags --libs arenabot)
// See docs/writing-a-bot.md, "C++".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "arena/v1/arena.pb.h"

namespace arenabot {

// The events of a decision or of a game's end, as the seat may see them (each holds its game's event).
using Events = google::protobuf::RepeatedPtrField<arena::v1::Event>;

// What Bot::start_game is told.
struct GameInfo {
  std::string game;                             // "prohis", "sobek", "boss" or "bandits"
  uint32_t game_index = 0;                      // 0-based within the match
  uint32_t seat = 0;                            // your seat in this game (seats rotate between games)
  uint32_t num_players = 0;
  std::vector<std::string> players;             // the players' names, by seat
  uint64_t seed = 0;                            // for your own randomness: it says nothing about the deal
  std::map<std::string, std::string> settings;  // every setting of the game, as strings
};

// What Bot::end_game is told, by seat: scores, ranks (1 is best) and failures ("" or the reason);
// and the game's last events, since your last decision.
struct GameResult {
  std::vector<int32_t> scores;
  std::vector<uint32_t> ranks;
  std::vector<std::string> failures;
  Events events;
};

// A bot with memory across decisions and games. Its memory lasts as long as its process, which
// never plays the same deal twice.
class Bot {
 public:
  virtual ~Bot() = default;
  // Called at each game's start, after rng has been reseeded from the game's seed.
  virtual void start_game(const GameInfo& info) { (void)info; }
  // Returns one of legal_actions; anything else is an illegal action, and costs the game.
  virtual std::string decide(const arena::v1::View& view, const Events& events,
                             const std::vector<std::string>& legal_actions) = 0;
  // Called at each game's end (the last one may not get to run: the process is stopped when the
  // referee is done with it).
  virtual void end_game(const GameResult& result) { (void)result; }

  std::mt19937_64 rng;  // reseeded from GameStart.seed before each game, so matches replay
};

// The most of a decision's debug text the kit sends, in bytes of UTF-8: the referee keeps 1 KiB of it
// and says it cut the rest (referee/limits.py DEBUG_SEND_BYTES; a test holds them together).
constexpr size_t kDebugSendBytes = 4 * 1024;

// Adds line to the debug text sent with the next reply: the referee keeps it with that decision in
// the game's record, and the replay shows it beside the decision, to the bot's owner alone; no other
// seat is ever sent it. Past kDebugSendBytes a decision more is dropped here (the referee keeps 1 KiB,
// and 256 KiB a game); bytes that are not UTF-8 are sent as U+FFFD.
void debug(const std::string& line);

using Decide = std::function<std::string(const arena::v1::View& view, const Events& events,
                                         const std::vector<std::string>& legal_actions)>;

// Plays a whole match as the seat at address (default: $ARENA_SOCKET, a unix:// address): says hello
// with name, version and the games it plays (empty: every game), answers every decision request,
// and returns the process's exit code: 0 once the match has ended, 1 if it could not finish it
// (the reason is on stderr). An exception from the bot ends the match for it (exit code 1).
int run(Bot& bot, const std::string& name, const std::string& version,
        const std::vector<std::string>& games = {}, const std::string& address = "");
int run(Decide decide, const std::string& name, const std::string& version,
        const std::vector<std::string>& games = {}, const std::string& address = "");

}  // namespace arenabot
