// Plays a uniformly random legal action, in any game: its rng is reseeded with each game's seed.
const { run, Strategy } = require('arenabot');

// Your strategy goes in decide(view, legalActions): docs/writing-a-bot.md.
class RandomBot extends Strategy {
  decide(view, legalActions) {
    return this.rng.choice(legalActions);
  }
}

run(new RandomBot(), { name: '{{name}}', version: '{{version}}' });
