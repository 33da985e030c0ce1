/**
 * Definitions of the topic-level configs we accept ({@link io.varve.metadata.config.TopicConfigDef}):
 * names, types, defaults and validation, matching Kafka 4.x. Owns no state; the controller uses it
 * to validate, the broker to map configs onto its storage settings.
 *
 * <p>{@link io.varve.metadata.config.DynamicBrokerConfigDef} defines the broker-level synonyms of topic
 * configs ({@code log.retention.ms} …) and which broker keys may change at runtime;
 * {@link io.varve.metadata.config.ConfigLayers} resolves a config over its layers (topic override,
 * dynamic broker, dynamic cluster default, static, default) with Kafka's sources and synonyms.
 */
package io.varve.metadata.config;
