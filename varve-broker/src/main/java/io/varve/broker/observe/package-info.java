/**
 * What the broker shows through the HTTP listener: {@link io.varve.broker.observe.NodeView} implements varve-http's
 * read-only {@code BrokerView} over the metadata cache, the logs, the coordinators and tiered storage, and {@link
 * io.varve.broker.observe.FetchTraffic} and {@link io.varve.broker.observe.RequestTimer} are what the fetch path and
 * the request dispatcher call (one line each). Reads
 * only; never changes broker state.
 */
package io.varve.broker.observe;
