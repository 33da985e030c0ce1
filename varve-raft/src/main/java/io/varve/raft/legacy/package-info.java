/**
 * The metadata log format of the single-voter Raft node of earlier releases ({@code __cluster_metadata-0}: one
 * segment file of batch frames, {@link io.varve.raft.legacy.BatchFrameCodec}, with its recovery). Nothing runs on it
 * any more: {@link io.varve.raft.legacy.LegacyLogMigration} reads such a log once and appends its batches to the
 * KRaft-style log. The writer stays so that tests can make an old directory.
 */
package io.varve.raft.legacy;
