/**
 * The follower side of replication: {@link io.varve.broker.replica.fetcher.ReplicaFetcherManager} places each
 * followed partition on a fetcher thread of its leader broker; a {@link
 * io.varve.broker.replica.fetcher.ReplicaFetcher} fetches, appends as follower and truncates through the {@link
 * io.varve.broker.replica.Partition}; {@link io.varve.broker.replica.fetcher.LeaderFetchSession} is the follower's
 * side of a KIP-227 fetch session with one leader; {@link io.varve.broker.replica.fetcher.FollowerCatchUp} logs the
 * progress of partitions far behind their leader. Owns no replication state (that is the partition's) and no wire
 * format beyond building Fetch requests.
 */
package io.varve.broker.replica.fetcher;
