/**
 * The node's logger levels behind Kafka's BROKER_LOGGER config resource. Owns no logging configuration file and
 * writes nothing to disk: changes last until the node restarts, as in Kafka.
 */
package io.varve.broker.logging;
