// Driven by SchemaRegistryNodeIT: registers Avro, JSON Schema and Protobuf schemas with references through
// @kafkajs/confluent-schema-registry, produces records it serialised with KafkaJS, consumes and decodes them, and
// checks that the broker's schema validation refuses a record without the registry's header.
// Prints one "OK <what>" line per check; any failure exits non-zero.
'use strict';
const { Kafka, logLevel } = require('kafkajs');
const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry');

const bootstrap = process.env.BOOTSTRAP;
const registryUrl = process.env.REGISTRY_URL;
const topics = { AVRO: process.env.TOPIC_AVRO, JSON: process.env.TOPIC_JSON, PROTOBUF: process.env.TOPIC_PROTOBUF };
const prefix = process.env.SUBJECT_PREFIX;

const registry = new SchemaRegistry({ host: registryUrl });
const kafka = new Kafka({ clientId: 'varve-node-it', brokers: [bootstrap], logLevel: logLevel.NOTHING,
  retry: { retries: 2 } });

const addressAvro = JSON.stringify({ type: 'record', name: 'Address', namespace: 'demo',
  fields: [{ name: 'city', type: 'string' }] });
const personAvro = JSON.stringify({ type: 'record', name: 'Person', namespace: 'demo',
  fields: [{ name: 'name', type: 'string' }, { name: 'home', type: 'demo.Address' }] });

const addressJsonId = 'https://varve.test/address.json';
const addressJson = JSON.stringify({ $id: addressJsonId, type: 'object',
  properties: { city: { type: 'string' } }, required: ['city'] });
const personJson = JSON.stringify({ type: 'object',
  properties: { name: { type: 'string' }, home: { $ref: addressJsonId } }, required: ['name', 'home'] });

const addressProto = 'syntax = "proto3";\npackage demo;\n\nmessage Address {\n  string city = 1;\n}\n';
const personProto = 'syntax = "proto3";\npackage demo;\n\nimport "address.proto";\n\n'
  + 'message Person {\n  string name = 1;\n  demo.Address home = 2;\n}\n';

async function registerAll() {
  const ids = {};
  const a = await registry.register({ type: SchemaType.AVRO, schema: addressAvro }, { subject: `${prefix}-address-avro` });
  ids.AVRO = (await registry.register({ type: SchemaType.AVRO, schema: personAvro,
    references: [{ name: 'demo.Address', subject: `${prefix}-address-avro`, version: 1 }] },
    { subject: `${topics.AVRO}-value` })).id;
  const j = await registry.register({ type: SchemaType.JSON, schema: addressJson }, { subject: `${prefix}-address-json` });
  ids.JSON = (await registry.register({ type: SchemaType.JSON, schema: personJson,
    references: [{ name: addressJsonId, subject: `${prefix}-address-json`, version: 1 }] },
    { subject: `${topics.JSON}-value` })).id;
  const p = await registry.register({ type: SchemaType.PROTOBUF, schema: addressProto }, { subject: `${prefix}-address-proto` });
  ids.PROTOBUF = (await registry.register({ type: SchemaType.PROTOBUF, schema: personProto,
    references: [{ name: 'address.proto', subject: `${prefix}-address-proto`, version: 1 }] },
    { subject: `${topics.PROTOBUF}-value` })).id;
  if (new Set([a.id, j.id, p.id, ids.AVRO, ids.JSON, ids.PROTOBUF]).size !== 6) {
    throw new Error(`expected six distinct ids, got ${JSON.stringify([a, j, p, ids])}`);
  }
  // The same schema again: the same id, no new version.
  const again = await registry.register({ type: SchemaType.AVRO, schema: addressAvro }, { subject: `${prefix}-address-avro` });
  if (again.id !== a.id) throw new Error(`re-registering gave id ${again.id}, not ${a.id}`);
  const latest = await registry.getLatestSchemaId(`${topics.AVRO}-value`);
  if (latest !== ids.AVRO) throw new Error(`latest id ${latest}, expected ${ids.AVRO}`);
  console.log(`OK registered ${JSON.stringify(ids)}`);
  return ids;
}

async function roundTrip(type, id, values) {
  const producer = kafka.producer({ retry: { retries: 0 } });
  await producer.connect();
  const messages = [];
  for (const v of values) {
    messages.push({ key: v.name, value: await registry.encode(id, v) });
  }
  await producer.send({ topic: topics[type], messages });
  await producer.disconnect();

  // A fresh registry client decodes, so the schemas (and their references) are fetched by id from Varve.
  const reader = new SchemaRegistry({ host: registryUrl });
  const consumer = kafka.consumer({ groupId: `${prefix}-${type}` });
  await consumer.connect();
  await consumer.subscribe({ topic: topics[type], fromBeginning: true });
  const decoded = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${type}: only ${decoded.length} records consumed`)), 60000);
    consumer.run({
      eachMessage: async ({ message }) => {
        try {
          decoded.push(await reader.decode(message.value));
        } catch (e) {
          clearTimeout(timer);
          reject(e);
          return;
        }
        if (decoded.length === values.length) {
          clearTimeout(timer);
          resolve();
        }
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  const got = JSON.stringify(decoded.map((d) => ({ name: d.name, home: { city: d.home.city } })));
  const want = JSON.stringify(values);
  if (got !== want) throw new Error(`${type}: decoded ${got}, produced ${want}`);
  console.log(`OK ${type} round trip of ${values.length} records`);
}

async function refusedWithoutHeader() {
  const producer = kafka.producer({ retry: { retries: 0 } });
  await producer.connect();
  try {
    await producer.send({ topic: topics.AVRO, messages: [{ value: Buffer.from('no header here') }] });
    throw new Error('a record without the registry header was accepted');
  } catch (e) {
    const text = `${e.type || ''} ${e.message}`;
    if (!/INVALID_RECORD|validation/i.test(text)) throw e;
    console.log(`OK refused: ${text.trim()}`);
  } finally {
    await producer.disconnect();
  }
}

(async () => {
  const ids = await registerAll();
  const people = [{ name: 'ada', home: { city: 'London' } }, { name: 'grace', home: { city: 'Arlington' } }];
  for (const type of ['AVRO', 'JSON', 'PROTOBUF']) {
    await roundTrip(type, ids[type], people);
  }
  await refusedWithoutHeader();
  console.log('OK all');
})().catch((e) => {
  console.error(`FAILED ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
