// A JavaScript bot that goes wrong at its third decision, for tests/kits/test_javascript.py.
//
//     node misbehave.js throw|reject|illegal
//
// throw: decide throws; reject: decide returns a rejected Promise; illegal: decide returns a
// string that is not a legal action. Before that, it plays the first legal action.
const { run } = require('arenabot');

const kind = process.argv[2];
let decisions = 0;

run((view, legalActions) => {
  decisions += 1;
  if (decisions < 3) return legalActions[0];
  if (kind === 'throw') throw new Error('decide went wrong');
  if (kind === 'reject') return Promise.reject(new Error('decide went wrong, later'));
  return 'no-such-action';
}, { name: `js-${kind}`, version: '1' });
