/**
 * The Raft wire messages as plain records, one per Kafka message (Vote, BeginQuorumEpoch,
 * EndQuorumEpoch, Fetch, FetchSnapshot, DescribeQuorum), Kafka's error codes ({@link
 * io.varve.raft.core.message.RaftError}), and the values they carry (log entries, offsets with epochs,
 * snapshot ids). No behaviour and no dependency on Kafka: the broker's protocol seam maps these 1:1 to
 * kafka-clients' generated classes.
 */
package io.varve.raft.core.message;
