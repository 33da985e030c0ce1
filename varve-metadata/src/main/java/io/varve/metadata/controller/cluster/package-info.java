/**
 * Broker lifecycle on the controller: BrokerRegistration, BrokerHeartbeat (fencing, unfencing,
 * controlled shutdown), UnregisterBroker and the session-timeout check. Pure: images, requests and
 * the current time in; records and replies out. The heartbeat bookkeeping
 * ({@link io.varve.metadata.controller.cluster.BrokerHeartbeats}) is the only state, soft state of
 * the active controller that is never written to the log. Leadership moves are delegated to the
 * {@code replication} package; this package must not touch the network or read a clock.
 */
package io.varve.metadata.controller.cluster;
