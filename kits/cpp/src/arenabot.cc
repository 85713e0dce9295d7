// The client loop of arenabot.h: one channel, one stream, a hello, then an answer to each decision
// request until MatchEnd (docs/protocol.md).
#include "arenabot/arenabot.h"

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <utility>

#include "arena/v1/arena.grpc.pb.h"

namespace arenabot {
namespace {

namespace pb = arena::v1;

constexpr uint32_t kProtocolVersion = 1;
constexpr int kMaxReceiveBytes = 16 * 1024 * 1024;  // the most the referee sends in one message

class FunctionBot : public Bot {
 public:
  explicit FunctionBot(Decide decide) : decide_(std::move(decide)) {}
  std::string decide(const pb::View& view, const Events& events,
                     const std::vector<std::string>& legal_actions) override {
    return decide_(view, events, legal_actions);
  }

 private:
  Decide decide_;
};

std::string& said() {  // what debug() said since the last reply
  static std::string text;
  return text;
}

// The length of the valid UTF-8 sequence at text[i] (as protobuf checks a string: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0.
size_t utf8_at(const std::string& text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t code;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, code = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, code = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, code = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(text[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    code = (code << 6) | (d & 0x3F);
  }
  if ((n == 3 && code < 0x800) || (n == 4 && (code < 0x10000 || code > 0x10FFFF)) ||
      (code >= 0xD800 && code <= 0xDFFF)) {
    return 0;
  }
  return n;
}

// What was said since the last call, as a protobuf string must be: valid UTF-8 (each invalid byte
// as U+FFFD), at most kDebugSendBytes, cut at a character.
std::string take_debug() {
  std::string& text = said();
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_at(text, i);
    const size_t size = n ? n : 3;
    if (out.size() + size > kDebugSendBytes) break;
    if (n) {
      out.append(text, i, n);
    } else {
      out += "\xEF\xBF\xBD";
    }
    i += n ? n : 1;
  }
  text.clear();
  return out;
}

GameInfo start_info(const pb::MatchStart& match, const pb::GameStart& start) {
  GameInfo info;
  info.game = match.game();
  info.game_index = start.game_index();
  info.seat = start.seat();
  info.num_players = start.num_players();
  for (const auto& player : start.players()) info.players.push_back(player.name());
  info.seed = start.seed();
  info.settings.insert(match.settings().begin(), match.settings().end());
  return info;
}

GameResult end_info(const pb::GameEnd& end) {
  GameResult result;
  for (const auto& seat : end.results()) {
    result.scores.push_back(seat.score());
    result.ranks.push_back(seat.rank());
    result.failures.push_back(seat.failure());
  }
  result.events = end.events();
  return result;
}

// Fills out with the reply to request: the legal action the bot chose, copied whole (text and typed
// form). A choice that is not legal is sent as its text alone, and the referee judges it (illegal).
void answer(Bot& bot, const pb::DecisionRequest& request, std::vector<std::string>& legal, pb::BotMessage& out) {
  legal.clear();
  for (const auto& action : request.legal_actions()) legal.push_back(action.text());
  std::string choice = bot.decide(request.view(), request.events(), legal);
  pb::Reply* reply = out.mutable_reply();
  reply->set_decision_id(request.decision_id());
  reply->set_debug(take_debug());  // empty: none (and no bytes on the wire)
  for (size_t i = 0; i < legal.size(); ++i) {
    if (legal[i] == choice) {
      *reply->mutable_action() = request.legal_actions(static_cast<int>(i));
      return;
    }
  }
  std::cerr << "arenabot: \"" << choice << "\" is not among the legal actions" << std::endl;
  reply->mutable_action()->Clear();
  reply->mutable_action()->set_text(choice);
}

using Stream = grpc::ClientReaderWriter<pb::BotMessage, pb::RefereeMessage>;

// Plays until MatchEnd (true) or until the stream ends first (false). Exceptions from the bot pass.
bool play(Bot& bot, Stream& stream, const std::string& name, const std::string& version,
          const std::vector<std::string>& games) {
  pb::BotMessage out;
  pb::Hello* hello = out.mutable_hello();
  hello->set_name(name);
  hello->set_version(version);
  hello->set_protocol_version(kProtocolVersion);
  for (const auto& game : games) hello->add_games(game);
  if (!stream.Write(out)) return false;
  pb::RefereeMessage msg;
  pb::MatchStart match;
  std::vector<std::string> legal;
  while (stream.Read(&msg)) {
    switch (msg.message_case()) {
      case pb::RefereeMessage::kDecision:
        answer(bot, msg.decision(), legal, out);
        if (!stream.Write(out)) return false;
        break;
      case pb::RefereeMessage::kMatchStart:
        match.Swap(msg.mutable_match_start());
        break;
      case pb::RefereeMessage::kGameStart:
        bot.rng.seed(msg.game_start().seed());
        bot.start_game(start_info(match, msg.game_start()));
        break;
      case pb::RefereeMessage::kGameEnd:
        bot.end_game(end_info(msg.game_end()));
        break;
      case pb::RefereeMessage::kMatchEnd:
        stream.WritesDone();
        return true;
      default:  // a message of a later protocol version: ignore it
        break;
    }
  }
  return false;
}

}  // namespace

void debug(const std::string& line) {
  std::string& text = said();
  if (text.size() > kDebugSendBytes) return;
  if (!text.empty()) text += '\n';
  text.append(line, 0, kDebugSendBytes + 1);
}

int run(Bot& bot, const std::string& name, const std::string& version, const std::vector<std::string>& games,
        const std::string& address) {
  std::string target = address;
  if (target.empty()) {
    const char* env = std::getenv("ARENA_SOCKET");
    if (env == nullptr || *env == '\0') {
      std::cerr << "arenabot: ARENA_SOCKET is not set: the referee passes the socket address in it" << std::endl;
      return 1;
    }
    target = env;
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxReceiveBytes);  // and no keepalive: the referee counts pings as abuse
  auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  auto stub = pb::Referee::NewStub(channel);
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream = stub->Play(&context);
  bool ended;
  try {
    ended = play(bot, *stream, name, version, games);
  } catch (const std::exception& exc) {
    std::cerr << "arenabot: the bot threw an exception: " << exc.what() << std::endl;
    context.TryCancel();
    stream->Finish();
    return 1;
  } catch (...) {
    std::cerr << "arenabot: the bot threw an exception" << std::endl;
    context.TryCancel();
    stream->Finish();
    return 1;
  }
  if (ended) {  // as the referee expects: close our side and go, without waiting for its status
    context.TryCancel();
    stream->Finish();
    return 0;
  }
  grpc::Status status = stream->Finish();
  std::cerr << "arenabot: the stream to " << target << " ended before the match did";
  if (!status.ok()) std::cerr << " (" << status.error_message() << ")";
  std::cerr << std::endl;
  return 1;
}

int run(Decide decide, const std::string& name, const std::string& version, const std::vector<std::string>& games,
        const std::string& address) {
  FunctionBot bot(std::move(decide));
  return run(bot, name, version, games, address);
}

}  // namespace arenabot
