/**
 * What the broker shows through the HTTP listener: {@link io.varve.broker.observe.NodeView} implements varve-http's
 * read-only {@code BrokerView} over the metadata cache, the logs, the coordinators and tiered storage, and {@link
 * io.varve.broker.observe.FetchTraffic} and {@link io.varve.broker.observe.RequestTimer} are what the fetch path and
 * the request dispatcher call (one line each). {@link io.varve.broker.observe.HttpListenerSecurity} turns {@code
 * varve.http.*} into the listener's TLS and authentication (checked against the broker's SCRAM and PLAIN users) and
 * gives the console the broker's ACL check. Reads only; never changes broker state.
 */
package io.varve.broker.observe;
