// The JavaScript kit's side of tests/kits/test_javascript.py's decoding test.
//
//     node decode.js < MESSAGES
//
// Reads referee messages, one hex string of a RefereeMessage's bytes per line, and hands each
// to the kit's Session, as the client loop does, with a strategy that writes down every call
// it gets. Prints one JSON line per call (["start_game", info], ["decide", view, legalActions],
// ["end_game", result]) and per reply (["reply", hex of the BotMessage's bytes]); a BigInt is
// printed as its digits and "n".
const { Session } = require('arenabot/lib/client');
const { definition } = require('arenabot/lib/protocol');

const play = definition['arena.v1.Referee'].Play;
const calls = [];

// A plain object, not a Strategy: the kit takes any object with `decide`; an async one here.
const recorder = {
  startGame(info) { calls.push(['start_game', info]); },
  async decide(view, legalActions) {
    calls.push(['decide', view, legalActions]);
    return legalActions[0];
  },
  endGame(result) { calls.push(['end_game', result]); },
};

async function main() {
  const input = [];
  for await (const chunk of process.stdin) input.push(chunk);
  const session = new Session(recorder);
  for (const line of Buffer.concat(input).toString().split('\n')) {
    if (!line) continue;
    const reply = await session.handle(play.responseDeserialize(Buffer.from(line, 'hex')));
    if (reply !== null) calls.push(['reply', play.requestSerialize({ reply }).toString('hex')]);
  }
  const json = (value) => JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
  process.stdout.write(calls.map(json).join('\n') + '\n');
}

main();
