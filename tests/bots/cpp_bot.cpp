// A C++ bot on the C++ kit, for its tests (tests/sandbox/test_cpp.py):
//
//   cpp_bot KIND [AFTER]
//
//   first    the function form of arenabot::run: always the first legal action
//   record   the class form: random legal actions; prints to stderr what start_game and end_game
//            are told, and the view's game at each game's first decision, a line each
//   throw    plays random legal actions, and decide throws at decision AFTER+1 (default 3)
//   illegal  plays random legal actions, and answers "flip:9" (never legal) at decision AFTER+1
//   debug    plays the first legal action and says "cpp seat S decision N: ACTION" with
//            arenabot::debug (N counted in the game); at every third decision control codes and a
//            byte that is not UTF-8 besides, at every fifth 3000 more bytes
#include <arenabot/arenabot.h>

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

template <typename Items>
std::string joined(const Items& items) {
  std::ostringstream out;
  const char* separator = "";
  for (const auto& item : items) {
    out << separator << (item.empty() ? "-" : item);
    separator = ",";
  }
  return out.str();
}

template <typename Numbers>
std::string numbers(const Numbers& items) {
  std::ostringstream out;
  const char* separator = "";
  for (auto item : items) {
    out << separator << item;
    separator = ",";
  }
  return out.str();
}

class TestBot : public arenabot::Bot {
 public:
  TestBot(std::string kind, int after) : kind_(std::move(kind)), after_(after) {}

  void start_game(const arenabot::GameInfo& info) override {
    first_ = true;
    seat_ = info.seat;
    number_ = 0;
    if (kind_ != "record") return;
    std::vector<std::string> settings;
    for (const auto& [key, value] : info.settings) settings.push_back(key + "=" + value);
    std::cerr << "START " << info.game << ' ' << info.game_index << ' ' << info.seat << ' ' << info.num_players
              << ' ' << joined(info.players) << ' ' << info.seed << ' ' << joined(settings) << std::endl;
  }

  std::string decide(const arena::v1::View& view, const arenabot::Events& events,
                     const std::vector<std::string>& legal_actions) override {
    if (kind_ == "record" && first_) {
      const auto* game = view.GetDescriptor()->FindFieldByNumber(view.game_case());
      std::cerr << "VIEW " << (game ? game->name() : "none") << ' ' << events.size() << std::endl;
    }
    first_ = false;
    if (kind_ == "debug") {
      ++number_;
      arenabot::debug("cpp seat " + std::to_string(seat_) + " decision " + std::to_string(number_) + ": " +
                      legal_actions.front());
      if (number_ % 3 == 0) arenabot::debug("\x1b[2J\rforged\xE2\x80\xAE" "evil\xff");
      if (number_ % 5 == 0) arenabot::debug(std::string(3000, 'z'));
      return legal_actions.front();
    }
    if (++count_ == after_ + 1) {
      if (kind_ == "throw") throw std::runtime_error("thrown on purpose");
      if (kind_ == "illegal") return "flip:9";
    }
    return legal_actions[std::uniform_int_distribution<size_t>(0, legal_actions.size() - 1)(rng)];
  }

  void end_game(const arenabot::GameResult& result) override {
    if (kind_ != "record") return;
    std::cerr << "END " << numbers(result.scores) << ' ' << numbers(result.ranks) << ' ' << joined(result.failures)
              << std::endl;
  }

 private:
  std::string kind_;
  int after_;
  int count_ = 0;
  bool first_ = true;
  uint32_t seat_ = 0;
  int number_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string kind = argc > 1 ? argv[1] : "";
  int after = argc > 2 ? std::stoi(argv[2]) : 3;
  if (kind == "first") {
    return arenabot::run([](const arena::v1::View&, const arenabot::Events&,
                            const std::vector<std::string>& legal_actions) { return legal_actions.front(); },
                         "cpp-first", "1.0.0");
  }
  TestBot bot(kind, after);
  return arenabot::run(bot, "cpp-" + kind, "1.0.0");
}
