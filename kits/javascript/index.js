'use strict';
/**
 * arenabot: the JavaScript bot kit for Arena.
 *
 * Write `decide(view, legalActions)`; `run` connects to the referee, loops over its requests
 * and answers with your choices; `debug(...)` says why, beside each decision in your replays. Views, events and actions are the same plain data as in
 * the Python kit. See docs/writing-a-bot.md.
 */
const { debug, run, Strategy } = require('./lib/client');
const { Random } = require('./lib/random');

module.exports = { Random, Strategy, debug, run };
