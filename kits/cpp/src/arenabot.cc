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
