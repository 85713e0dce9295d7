// The Bandits heuristic of the Python kit (arenabot.strategies.bandits_heuristic), in JavaScript:
// it stashes loot as soon as it holds three of a kind, raids the fullest hideout when it carries
// a Tracker and some guns, attacks the biggest hand whenever it holds a few guns, and otherwise
// draws. It defends with the fewest stars that hold, answers a fight it cannot win with a
// Backfire, and throws its Lawmen away rather than hand them to a winning attacker.
const { run, Strategy } = require('arenabot');

const RAID_GUNS = 3; // guns in hand to raid a hideout
const ATTACK_GUNS = 4; // guns in hand to attack a hand
const ENOUGH_GUNS = 8; // an attack stops adding cards at this strength

/** "outlaw_3" -> ["outlaw", 3]; "tracker" -> ["tracker", 0]. */
function split(card) {
  const cut = card.lastIndexOf('_');
  const value = card.slice(cut + 1);
  return cut >= 0 && /^\d+$/.test(value) ? [card.slice(0, cut), Number(value)] : [card, 0];
}

function guns(card) {
  const [kind, value] = split(card);
  return kind === 'outlaw' || kind === 'two_faced' ? value : 0;
}

function stars(card) {
  const [kind, value] = split(card);
  return kind === 'lawman' || kind === 'two_faced' ? value : 0;
}

const sum = (numbers) => numbers.reduce((a, b) => a + b, 0);

/** The first item whose key (an array, compared element by element) is the greatest. */
function maxBy(items, key) {
  let best;
  let bestKey;
  for (const item of items) {
    const k = key(item);
    if (best === undefined || compare(k, bestKey) > 0) [best, bestKey] = [item, k];
  }
  return best;
}

function minBy(items, key) {
  return maxBy(items, (item) => key(item).map((v) => -v));
}

function compare(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

class BanditsHeuristic extends Strategy {
  decide(view, legal) {
    const handler = { turn: this.turn, attack: this.attack, stash: this.stash, defend: this.defend,
      backfire: this.backfire }[view.phase];
    const action = handler?.call(this, view, legal);
    return legal.includes(action) ? action : legal[0];
  }

  // -- my turn ---------------------------------------------------------------------------------
  turn(view, legal) {
    const { hand, players } = view;
    for (const kind of ['gold', 'bag']) { // gold first: it is worth more
      const stash = legal.filter((a) => a.startsWith(`stash:${kind}_`));
      if (stash.length) return stash[stash.length - 1];
    }
    const myGuns = sum(hand.map(guns));
    const others = Array.from({ length: view.num_players }, (_, s) => s).filter((s) => s !== view.seat);
    if (hand.includes('tracker') && myGuns >= RAID_GUNS) {
      const fullest = maxBy(others, (s) => [players[s].hideout_size, players[s].total]);
      if (players[fullest].hideout_size >= 3 && legal.includes(`raid:${fullest}`)) return `raid:${fullest}`;
    }
    if (myGuns >= ATTACK_GUNS) return `attack:${maxBy(others, (s) => [players[s].hand_size, -s])}`;
    return 'draw';
  }

  attack(view, legal) {
    if (view.guns >= ENOUGH_GUNS && legal.includes('done')) return 'done';
    // Outlaws first, strongest first; Two-Faced cards are kept for defence when possible.
    const outlaws = legal.filter((a) => a.startsWith('gun:outlaw_'));
    if (outlaws.length) return outlaws[outlaws.length - 1];
    const twoFaced = legal.filter((a) => a.startsWith('gun:two_faced_'));
    if (twoFaced.length && (view.guns < ATTACK_GUNS || !legal.includes('done'))) return twoFaced[twoFaced.length - 1];
    return 'done';
  }

  stash(view, legal) { // everything of the kind, and the Booby Trap
    const cards = legal.filter((a) => a.startsWith('stash:'));
    return cards.length ? cards[cards.length - 1] : 'done';
  }

  // -- in a fight --------------------------------------------------------------------------------
  defend(view, legal) {
    if (view.raid && !view.defence.length) {
      const { hideout } = view;
      if (!hideout.length || hideout.includes('booby_trap')) return 'done'; // the raid takes nothing
    }
    return this.hold(view, legal, view.stars, true);
  }

  backfire(view, legal) {
    return this.hold(view, legal, view.counter_stars, false);
  }

  hold(view, legal, held, canBackfire) {
    const needed = view.guns;
    if (held >= needed) return 'done';
    const plays = legal.filter((a) => a.startsWith('star:'));
    const lawman = (a) => (a.startsWith('star:lawman_') ? 1 : 0);
    if (held + sum(view.hand.map(stars)) >= needed) {
      // The weakest card that closes the gap alone, else the strongest, and go on;
      // Lawmen before Two-Faced cards, which also make guns.
      const closing = plays.filter((a) => held + stars(a.slice(5)) >= needed);
      if (closing.length) return minBy(closing, (a) => [stars(a.slice(5)), 1 - lawman(a)]);
      return maxBy(plays, (a) => [stars(a.slice(5)), lawman(a)]);
    }
    if (canBackfire && legal.includes('backfire')) return 'backfire';
    if (!view.raid && plays.length) return plays[0]; // the hand is lost anyway: the Lawmen go to the Boneyard
    return 'done';
  }
}

run(new BanditsHeuristic(), { name: 'js-bandits-heuristic', version: '1.0.0', games: ['bandits'] });
