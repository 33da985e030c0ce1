/**
 * KIP-392 follower fetching: which replica a consumer that names its rack ({@code client.rack}) should read from.
 * Pure: a {@link io.varve.broker.replica.selector.ReplicaSelector} gets the candidates (the leader and the in-sync
 * followers that hold the fetch offset) and returns one; {@link io.varve.broker.replica.selector.ReplicaSelectors}
 * turns {@code replica.selector.class} into one. Owns no partition state and does no I/O.
 */
package io.varve.broker.replica.selector;
