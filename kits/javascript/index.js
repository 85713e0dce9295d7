'use strict';
/**
 * arenabot: the JavaScript bot kit for Arena.
 *
 * Write `decide(view, legalActions)`; `run` connects to the referee, loops over its requests
 * and answers with your choices. Views, events and actions are the same plain data as in
 * the Python kit. See docs/writing-a-bot.md.
 */
const { run, Strategy } = require('./lib/client');
const { Random } = require('./lib/random');

module.exports = { Random, Strategy, run };
