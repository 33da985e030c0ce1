/**
 * Definitions of the topic-level configs we accept ({@link io.varve.metadata.config.TopicConfigDef}):
 * names, types, defaults and validation, matching Kafka 4.x. Owns no state; the controller uses it
 * to validate, the broker to map configs onto its storage settings.
 */
package io.varve.metadata.config;
