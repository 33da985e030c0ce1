/**
 * The broker's side of the schema registry ({@code varve-registry}): the {@code _schemas} topic as the registry's
 * log ({@link SchemasTopicLog}), where writes go in a cluster ({@link SchemasWriteRoute}: this node when it leads
 * {@code _schemas-0}, else the leader's claimed URL), the listener's TLS, principals and subject ACLs from a Kafka
 * listener and the authorizer ({@link RegistrySecurity}), its start-up ({@link SchemaRegistryWiring}), and
 * broker-side schema validation in the produce path ({@link SchemaValidation}). The registry itself knows nothing of
 * the broker.
 */
package io.varve.broker.registry;
