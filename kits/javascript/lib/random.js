'use strict';

const MASK64 = (1n << 64n) - 1n;

/**
 * A seeded random number generator (xoshiro128**), so that a bot seeded with its GameStart
 * seed replays its choices: Math.random cannot be seeded.
 */
class Random {
  /** `seed`: an integer as a number, a BigInt or a decimal string; its low 64 bits count. */
  constructor(seed = 0) {
    this.seed(seed);
  }

  seed(seed) {
    // splitmix64 spreads the seed over the four 32-bit words of the state
    let x = BigInt.asUintN(64, BigInt(seed));
    this.state = new Uint32Array(4);
    for (let i = 0; i < 4; i += 2) {
      x = (x + 0x9e3779b97f4a7c15n) & MASK64;
      let z = x;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
      z ^= z >> 31n;
      this.state[i] = Number(z & 0xffffffffn);
      this.state[i + 1] = Number(z >> 32n);
    }
  }

  /** The next 32 random bits, as an unsigned integer. */
  next32() {
    const s = this.state;
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** A float in [0, 1), with 53 random bits. */
  random() {
    return ((this.next32() >>> 5) * 67108864 + (this.next32() >>> 6)) / 9007199254740992;
  }

  /** An integer in [0, n). */
  int(n) {
    return Math.floor(this.random() * n);
  }

  /** One element of a non-empty array. */
  choice(items) {
    if (items.length === 0) throw new RangeError('choice() of an empty array');
    return items[this.int(items.length)];
  }

  /** Shuffles `items` in place and returns it. */
  shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

function rotl(x, k) {
  return (x << k) | (x >>> (32 - k));
}

module.exports = { Random };
