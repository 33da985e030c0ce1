/**
 * What the broker shows and does through the HTTP listener: {@link io.varve.broker.observe.NodeView} implements
 * varve-http's read-only {@code BrokerView} over the metadata cache, the logs, the coordinators and tiered storage;
 * {@link io.varve.broker.observe.NodeActions} implements the console's {@code ConsoleActions} as in-process Kafka
 * requests ({@link io.varve.broker.observe.LocalApis}: the same handlers and ACL check as the Kafka listeners), so
 * the console changes nothing a client could not; {@link io.varve.broker.observe.FetchTraffic} and {@link
 * io.varve.broker.observe.RequestTimer} are what the fetch path and the request dispatcher call (one line each).
 * {@link io.varve.broker.observe.HttpListenerSecurity} turns {@code varve.http.*} into the listener's TLS and
 * authentication (checked against the broker's SCRAM and PLAIN users) and gives the console the broker's ACL check.
 */
package io.varve.broker.observe;
