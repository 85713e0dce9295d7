// A JavaScript bot that says why with debug(), for tests/kits/test_javascript.py: it plays the
// first legal action and says "js seat S decision N: ACTION" (N counted in the game), at every
// third decision control codes and a lone surrogate besides, and at every fifth 3000 more bytes.
const { debug, run, Strategy } = require('arenabot');

class Debugger extends Strategy {
  startGame(info) {
    this.seat = info.seat;
    this.number = 0;
  }

  decide(view, legalActions) {
    this.number += 1;
    debug(`js seat ${this.seat} decision ${this.number}: ${legalActions[0]}`);
    if (this.number % 3 === 0) debug('\x1b[2J\rforged\u202eevil\ud800');
    if (this.number % 5 === 0) debug('z'.repeat(3000));
    return legalActions[0];
  }
}

run(new Debugger(), { name: 'js-debugger', version: '1' });
