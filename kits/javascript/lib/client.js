'use strict';
/**
 * The loop every JavaScript bot runs: connect, say hello, answer decision requests.
 *
 *     const { run } = require('arenabot');
 *     run((view, legalActions) => legalActions[0], { name: 'first-legal', version: '1.0.0' });
 *
 * `view` is plain data (see lib/protocol.js and docs/games/), `legalActions` an array of
 * strings such as "take:2"; return one of them, or a Promise of one. For state across
 * decisions and games, pass a Strategy (or any object with a `decide` method) instead.
 * `debug(...)` while deciding keeps a note with the decision, shown to the bot's owner beside
 * it in the replay.
 */
const grpc = require('@grpc/grpc-js');

const protocol = require('./protocol');
const { Random } = require('./random');

// The referee sends up to 16 MiB in one message (docs/protocol.md).
const CHANNEL_OPTIONS = { 'grpc.max_receive_message_length': 16 * 1024 * 1024 };
const Referee = grpc.loadPackageDefinition(protocol.definition).arena.v1.Referee;

// The most of a decision's debug text the kit sends, in bytes of UTF-8: the referee keeps 1 KiB
// of it and says it cut the rest (referee/limits.py DEBUG_SEND_BYTES; a test holds them together).
const DEBUG_SEND_BYTES = 4 * 1024;
let said = []; // the lines said with debug() since the last reply
let saidSize = 0;

/**
 * Adds a line (its parts joined by spaces, as console.log does with strings) to the debug text
 * sent with the next reply: the referee keeps it with that decision in the game's record, and
 * the replay shows it beside the decision, to the bot's owner alone. Past 4 KiB a decision,
 * more is dropped here (the referee keeps 1 KiB, 256 KiB a game).
 */
function debug(...parts) {
  if (saidSize > DEBUG_SEND_BYTES) return;
  const line = parts.map(String).join(' ');
  said.push(line);
  saidSize += line.length + 1;
}

/** What was said since the last call: at most DEBUG_SEND_BYTES of UTF-8, cut at a character. */
function takeDebug() {
  if (said.length === 0) return '';
  const text = said.join('\n');
  said = [];
  saidSize = 0;
  const bytes = Buffer.from(text, 'utf8'); // a lone surrogate becomes U+FFFD: valid UTF-8
  if (bytes.length <= DEBUG_SEND_BYTES) return bytes.toString('utf8');
  let end = DEBUG_SEND_BYTES;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1; // not inside a character
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * A bot's brain: told when a game starts, asked for decisions, told the result. Its `rng` is
 * reseeded with each game's seed, so a bot that draws from it replays its matches.
 */
class Strategy {
  constructor(seed = 0) {
    this.rng = new Random(seed);
  }

  /**
   * `info`: game, game_index, seat, num_players, players (names by seat), seed (a BigInt)
   * and settings (every setting of the game, as strings). Reseeds `this.rng`.
   */
  startGame(info) {
    this.rng.seed(info.seed);
  }

  /** Returns one of `legalActions` (or a Promise of one). */
  decide(view, legalActions) {
    throw new Error(`${this.constructor.name} does not implement decide(view, legalActions)`);
  }

  /** `result`: scores, ranks and failures ("" for none) by seat, and the game's last events. */
  endGame(result) {}
}

class FunctionStrategy extends Strategy {
  constructor(decide) {
    super();
    this.decide = decide;
  }
}

/**
 * One match as the bot sees it: each referee message in, the reply to send (if any) out.
 * The client loop feeds it the stream; anything a strategy throws comes out of `handle`.
 */
class Session {
  constructor(strategy) {
    this.strategy = strategy;
    this.match = protocol.definition['arena.v1.MatchStart'].deserialize(Buffer.alloc(0));
  }

  /** Returns the Reply to send, or null. */
  async handle(msg) {
    switch (msg.message) {
      case 'decision': {
        const request = msg.decision;
        const view = protocol.decodeView(request.view, request.events);
        const legal = request.legal_actions.map((a) => a.text);
        const choice = await this.strategy.decide(view, legal);
        const index = legal.indexOf(choice);
        if (index < 0) { // not a legal action: send it anyway, the referee judges
          console.error(`arenabot: ${JSON.stringify(String(choice))} is not among the legal actions`);
        }
        const action = index < 0 ? { text: String(choice) } : request.legal_actions[index];
        const reply = { decision_id: request.decision_id, action };
        const text = takeDebug();
        if (text) reply.debug = text;
        return reply;
      }
      case 'match_start':
        this.match = msg.match_start;
        return null;
      case 'game_start':
        await this.strategy.startGame?.(protocol.startInfo(this.match, msg.game_start));
        return null;
      case 'game_end':
        await this.strategy.endGame?.(protocol.endInfo(msg.game_end));
        return null;
      default: // match_end, or a message this version does not know
        return null;
    }
  }
}

/**
 * Plays a whole match as the seat at `address` (default: $ARENA_SOCKET), then resolves.
 * `bot`: a decide function, or a Strategy (any object with `decide`; `startGame` and
 * `endGame` are called when it has them). If the strategy throws or the stream fails, the
 * error is printed and the process exits with status 1: the referee counts a crash.
 */
async function run(bot, { name, version = '0', games = [], address = process.env.ARENA_SOCKET } = {}) {
  if (!name) throw new Error('run() needs the bot\'s name: run(bot, { name: "my-bot", version: "1.0.0" })');
  if (!address) {
    console.error('ARENA_SOCKET is not set: the referee passes the socket address in it');
    process.exit(1);
  }
  if (!process.execArgv.includes('--single-threaded')) {
    console.error('arenabot: run node with --single-threaded: V8\'s background threads would compute while other '
      + 'seats think, and the referee would freeze this bot between its turns (docs/writing-a-bot.md)');
  }
  const session = new Session(typeof bot === 'function' ? new FunctionStrategy(bot) : bot);
  // No client keepalive: the referee counts pings it did not ask for as abuse (docs/protocol.md).
  const client = new Referee(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const call = client.Play();
  call.on('error', () => {}); // the loop below sees every error; this one hears the cancel after it
  try {
    call.write({ hello: { name, version, protocol_version: protocol.PROTOCOL_VERSION, games } });
    for await (const msg of call) {
      const reply = await session.handle(msg);
      if (reply !== null) call.write({ reply });
      if (msg.message === 'match_end') break;
    }
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
  // Done: the stream ends now, whatever the referee does, and with it the connection, so that
  // nothing keeps the process alive.
  call.end();
  call.cancel();
  client.close();
}

module.exports = { DEBUG_SEND_BYTES, Session, Strategy, debug, run };
