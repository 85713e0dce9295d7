// Plays a uniformly random legal action, in any game.
#include <arenabot/arenabot.h>

#include <random>
#include <string>
#include <vector>

class RandomBot : public arenabot::Bot {
 public:
  // Your strategy goes in decide(): docs/writing-a-bot.md.
  // rng is reseeded from each game's seed by the kit (GameStart.seed), so a match replays exactly.
  std::string decide(const arena::v1::View&, const arenabot::Events&,
                     const std::vector<std::string>& legal_actions) override {
    std::uniform_int_distribution<size_t> pick(0, legal_actions.size() - 1);
    return legal_actions[pick(rng)];
  }
};

int main() {
  RandomBot bot;
  return arenabot::run(bot, "{{name}}", "{{version}}");
}
