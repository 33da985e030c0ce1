/**
 * The broker's side of the schema registry ({@code varve-registry}): the {@code _schemas} topic as the registry's
 * log ({@link SchemasTopicLog}), its start-up ({@link SchemaRegistryWiring}), and broker-side schema validation in
 * the produce path ({@link SchemaValidation}). The registry itself knows nothing of the broker.
 */
package io.varve.broker.registry;
