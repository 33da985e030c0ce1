/**
 * The schema registry over a running broker: its REST API with a Java HTTP client and with clients nobody here wrote
 * (KafkaJS and {@code @kafkajs/confluent-schema-registry} under node), its state across restarts, and broker-side
 * schema validation with a real producer; on three nodes, writes forwarded to the leader of {@code _schemas-0} and
 * the SIGKILL of that leader; https, HTTP Basic and subject ACLs, on one node and across a forwarded write.
 */
package io.varve.it.registry;
