/**
 * The Raft core's messages on Kafka's wire: {@link io.varve.broker.raft.RaftWireMapping} translates each
 * {@code io.varve.raft.core.message} record to and from kafka-clients' generated {@code *Data} classes
 * (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch and FetchSnapshot for {@code __cluster_metadata-0},
 * DescribeQuorum, AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter) at every version kafka-clients 4.4.0 defines ({@link
 * io.varve.broker.raft.RaftApis}); log entries travel as v2 record batches built by {@code
 * io.varve.storage.records.RaftBatches}. {@link io.varve.broker.raft.KafkaRaftTransport} carries them between
 * controllers over TCP: its {@link io.varve.broker.raft.RaftRequestDispatcher} serves the controller listener
 * of a {@code SocketServer} (and answers ApiVersions and DescribeCluster for admin clients there, {@link
 * io.varve.broker.raft.ControllerApis}), its {@code RaftPeerClient} keeps one connection per peer, addressed by
 * {@link io.varve.broker.raft.RaftAddressBook}. The broker starts it (in {@code io.varve.broker.MetadataLogs}) when
 * {@code controller.quorum.voters} names several voters or {@code controller.quorum.bootstrap.servers} asks for a
 * dynamic quorum.
 *
 * <p>Owns: field-by-field mapping, version differences, where errors go. Must not touch: Raft rules (the
 * core's).
 */
package io.varve.broker.raft;
