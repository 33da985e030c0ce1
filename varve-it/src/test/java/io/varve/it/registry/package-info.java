/**
 * The schema registry over a running broker: its REST API with a Java HTTP client and with clients nobody here wrote
 * (KafkaJS and {@code @kafkajs/confluent-schema-registry} under node), its state across restarts, and broker-side
 * schema validation with a real producer.
 */
package io.varve.it.registry;
