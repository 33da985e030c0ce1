/**
 * KIP-227 fetch sessions seen from the wire: kafka-clients consumers and Varve followers fetching thousands of
 * partitions, with the bytes of each Fetch request and response measured by a frame-reading proxy
 * ({@link io.varve.it.FetchFrameMeter}).
 */
package io.varve.it.fetchsession;
