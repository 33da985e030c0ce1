/**
 * The only place the coordinator reads kafka-clients' generated message classes: the consumer protocol's
 * subscription metadata and assignments that classic consumer groups carry as opaque bytes. An upgrade of kafka-clients
 * touches this package alone.
 */
package io.varve.coordinator.wire;
