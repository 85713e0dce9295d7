// The JavaScript half of tests/test_protoc.py. Loads the .proto files with @grpc/proto-loader, as a
// JavaScript bot does, and prints what it read, as JSON: for each message its fields and oneofs, for
// each enum its values, for each service its methods. The test compares that with what protoc read.
//
//   node load.js PROTO_ROOT FILE...
'use strict';
const loader = require('@grpc/proto-loader');

const [root, ...files] = process.argv.slice(2);
const definition = loader.loadSync(files, {keepCase: true, includeDirs: [root]});
const last = (name) => name.split('.').pop();
// A field's type: its scalar type, its enum's or message's name, or map<KEY,VALUE> (protoc and
// protobufjs name a map's entry type differently).
function fieldType(message, field) {
  const entry = message.nestedType.find((t) => t.name === field.typeName && t.options && t.options.mapEntry);
  if (entry) return `map<${entry.field.map((f) => f.type).join(',')}>`;
  return field.typeName ? last(field.typeName) : field.type;
}
const out = {};
for (const [name, def] of Object.entries(definition)) {
  if (def.format === undefined) {
    out[name] = {methods: Object.entries(def).map(([method, m]) => [
      method, last(m.requestType.type.name), m.requestStream, last(m.responseType.type.name), m.responseStream])};
  } else if (def.type.field !== undefined) {
    out[name] = {
      fields: def.type.field.map((f) => [f.name, f.number, f.label, fieldType(def.type, f)]),
      oneofs: def.type.oneofDecl.map((o) => o.name),
    };
  } else {
    out[name] = {values: def.type.value.map((v) => [v.name, v.number])};
  }
}
process.stdout.write(JSON.stringify(out));
