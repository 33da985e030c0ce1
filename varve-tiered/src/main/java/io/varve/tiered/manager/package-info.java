/**
 * The remote log manager, write side (issue 7): uploads rolled segments of tiered partitions with their indexes,
 * producer snapshot and leader epochs ({@link io.varve.tiered.manager.RemoteSegmentLifecycle}), applies remote
 * retention and deletes the remote data of deleted topics, one serial {@link io.varve.tiered.manager.PartitionTask}
 * per partition on a bounded pool, throttled ({@link io.varve.tiered.manager.CopyThrottle}) and retried with
 * backoff ({@link io.varve.tiered.manager.RetryBackoff}). The decisions are pure and unit-tested
 * ({@link io.varve.tiered.manager.UploadPlanner}, {@link io.varve.tiered.manager.RemoteRetention}). In a cluster
 * (issue 13) only a partition's leader uploads and deletes, the metadata is journaled in the remote tier and synced
 * from it ({@link io.varve.tiered.manager.RemoteMetadataJournal}), and a follower can start its log from the remote
 * tier ({@link io.varve.tiered.manager.FollowerStart}). Uses only the
 * public API of varve-storage; never the broker.
 */
package io.varve.tiered.manager;
