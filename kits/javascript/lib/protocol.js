'use strict';
/**
 * The protocol's messages, loaded from the .proto files with @grpc/proto-loader, and their
 * natural data: the same plain data that the Python kit hands a bot (arena_protocol.codec).
 *
 * - keys are the proto field names (snake_case: `keepCase`, so `decision_id` arrives);
 * - an enum value PROHIS_CARD_LEGAL is the string "legal" (the enum's type name, in
 *   UPPER_SNAKE, is the prefix); a number this version does not know reads as its digits;
 * - messages with fields that track presence (events: `optional` fields) are sparse: such a
 *   field appears only when set, any other field only when not its default (non-zero,
 *   non-empty). Other messages (views) carry every field, defaults included;
 * - an action is its text, such as "take:2";
 * - a 64-bit integer is a BigInt (the GameStart seed is the one the protocol has).
 */
const path = require('path');
const protoLoader = require('@grpc/proto-loader');

const PROTOCOL_VERSION = 1;
const PACKAGE = 'arena.v1';
// In the kit's folder: the Node base image copies protos/arena there.
const PROTOS = path.join(__dirname, '..', 'protos');

// What proto-loader hands over: field names as in the .proto files, enum values as their
// names, 64-bit integers as decimal strings (not Long objects), every field that has no
// presence at its default and every repeated one as an array (never undefined), and the
// name of the set member of each oneof (`game: "prohis"`).
const LOADER_OPTIONS = {
  keepCase: true, enums: String, longs: String, defaults: true, arrays: true, oneofs: true,
  includeDirs: [PROTOS],
};

const definition = protoLoader.loadSync('arena/v1/arena.proto', LOADER_OPTIONS);

const LONGS = new Set(['TYPE_INT64', 'TYPE_UINT64', 'TYPE_SINT64', 'TYPE_FIXED64', 'TYPE_SFIXED64']);
const EMPTY = Buffer.alloc(0);

function lookup(typeName) {
  const found = definition[`${PACKAGE}.${typeName}`];
  if (found === undefined) throw new Error(`the protocol has no type ${typeName}`);
  return found;
}

/** Enum value name -> its natural word, and the name of the value 0 (the default). */
function enumNames(typeName) {
  const prefix = `${typeName.replace(/(?<!^)(?=[A-Z])/g, '_').toUpperCase()}_`;
  const words = new Map();
  let zero;
  for (const { name, number } of lookup(typeName).type.value) {
    words.set(name, (name.startsWith(prefix) ? name.slice(prefix.length) : name).toLowerCase());
    if (number === 0) zero = name;
  }
  return { words, zero };
}

const plans = new Map();

/**
 * How to turn one decoded message type into natural data, worked out once per type.
 *
 * proto-loader's descriptors do not say which fields track presence, so its own decoding of
 * an empty message does: a field that always has a value there (a default) has none; an
 * `optional` or oneof field is absent, and a message field is null.
 */
function plan(typeName) {
  let found = plans.get(typeName);
  if (found !== undefined) return found;
  const type = lookup(typeName);
  const always = type.deserialize(EMPTY);
  found = { fields: [], sparse: false };
  plans.set(typeName, found);
  for (const f of type.type.field) {
    const field = {
      name: f.name,
      repeated: f.label === 'LABEL_REPEATED',
      presence: always[f.name] === undefined || always[f.name] === null,
      enum: f.type === 'TYPE_ENUM' ? enumNames(f.typeName) : null,
      message: f.type === 'TYPE_MESSAGE' ? plan(f.typeName) : null,
      long: LONGS.has(f.type),
    };
    found.sparse = found.sparse || field.presence;
    found.fields.push(field);
  }
  return found;
}

function scalar(field, value) {
  if (field.enum !== null) return field.enum.words.get(value) ?? String(value);
  if (field.message !== null) return natural(field.message, value);
  if (field.long) return BigInt(value);
  return value;
}

function isDefault(field, value) {
  if (field.repeated) return value.length === 0;
  if (field.enum !== null) return value === field.enum.zero;
  if (field.long) return value === '0';
  return value === 0 || value === false || value.length === 0;  // a number, a bool, a string or bytes
}

function natural(typePlan, message) {
  const out = {};
  for (const field of typePlan.fields) {
    const value = message[field.name];
    if (typePlan.sparse) {
      if (field.presence ? value === undefined || value === null : isDefault(field, value)) continue;
    }
    out[field.name] = field.repeated ? value.map((v) => scalar(field, v)) : scalar(field, value);
  }
  return out;
}

/** A decoded View and its Events -> the view's natural data, its events under `events`. */
function decodeView(view, events) {
  const [entry] = Object.entries(natural(plan('View'), view));
  if (entry === undefined) throw new Error('the view names no game');
  return { game: entry[0], ...entry[1], events: decodeEvents(events) };
}

/** Decoded Events -> their natural data (an event of no game this version knows is left out). */
function decodeEvents(events) {
  const out = [];
  for (const event of events) out.push(...Object.values(natural(plan('Event'), event)));
  return out;
}

/**
 * What a strategy's startGame gets, as in the Python kit: the game's name, the index of the
 * game in the match, the seat, the number of players, their names by seat, the seat's seed
 * (a BigInt: a uint64 does not fit in a number) and the match's settings (strings).
 */
function startInfo(match, start) {
  return {
    game: match.game, game_index: start.game_index, seat: start.seat, num_players: start.num_players,
    players: start.players.map((p) => p.name), seed: BigInt(start.seed), settings: { ...match.settings },
  };
}

/** What endGame gets: by seat the scores, ranks and failures ("" for none); the last events. */
function endInfo(end) {
  return {
    scores: end.results.map((r) => r.score), ranks: end.results.map((r) => r.rank),
    failures: end.results.map((r) => r.failure), events: decodeEvents(end.events),
  };
}

// protobufjs generates each type's codec on its first use, which would take milliseconds
// of the first game: generated now, and the natural-data plans with them, before the hello.
for (const type of Object.values(definition)) {
  if (type.deserialize !== undefined) type.deserialize(type.serialize({}));
}
plan('View');
plan('Event');

module.exports = { PROTOCOL_VERSION, definition, decodeView, startInfo, endInfo };
