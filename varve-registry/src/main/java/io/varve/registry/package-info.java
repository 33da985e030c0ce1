/**
 * Varve's schema registry, compatible with Confluent Schema Registry's REST API: {@link SchemaRegistry} is the
 * service (register, look up, delete, configure, test compatibility), {@code format} parses Avro, JSON Schema and
 * Protobuf, {@code compat} holds the compatibility levels and the rules we write ourselves, {@code state} is the pure
 * in-memory image replayed from the {@code _schemas} records, {@code store} is the seam to the log the broker
 * implements, {@code rest} is the HTTP listener. Nothing here depends on the broker.
 */
package io.varve.registry;
