package io.varve.coordinator.group.offset;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/** The requests and responses of the offset APIs, free of wire classes. */
public final class OffsetApi {
    private OffsetApi() {}

    public record CommitPartition(TopicPartition partition, long offset, int leaderEpoch, String metadata) {}

    /**
     * @param retentionTimeMs     OffsetCommit v2-4 only; -1 for the broker's retention
     * @param groupIdNotFoundCode v9+: a commit from a member to a group that does not exist gets GROUP_ID_NOT_FOUND
     *                            (older versions get ILLEGAL_GENERATION)
     */
    public record CommitRequest(
            String groupId,
            int generationIdOrMemberEpoch,
            String memberId,
            String groupInstanceId,
            long retentionTimeMs,
            List<CommitPartition> partitions,
            boolean groupIdNotFoundCode) {}

    /**
     * TxnOffsetCommit: offsets of the producer's ongoing transaction. {@code generationId}/{@code memberId}/
     * {@code groupInstanceId} are -1/""/null before v3 and from producers that do not pass the consumer's group
     * metadata (KIP-447). {@code consumerProtocolErrors} (v6+, KIP-1319): a group that does not exist is
     * GROUP_ID_NOT_FOUND and a stale member epoch STALE_MEMBER_EPOCH, as OffsetCommit answers; before v6 both are
     * ILLEGAL_GENERATION.
     */
    public record TxnCommitRequest(
            String groupId,
            long producerId,
            short producerEpoch,
            int generationId,
            String memberId,
            String groupInstanceId,
            List<CommitPartition> partitions,
            boolean consumerProtocolErrors) {

        /** Before v6: the errors of KIP-447. */
        public TxnCommitRequest(
                String groupId,
                long producerId,
                short producerEpoch,
                int generationId,
                String memberId,
                String groupInstanceId,
                List<CommitPartition> partitions) {
            this(groupId, producerId, producerEpoch, generationId, memberId, groupInstanceId, partitions, false);
        }
    }

    public record PartitionResult(TopicPartition partition, Errors error) {}

    /**
     * @param memberId   null unless a KIP-848 member asks (OffsetFetch v9+)
     * @param partitions null for every partition the group has offsets for
     */
    public record FetchRequest(
            String groupId, String memberId, int memberEpoch, List<TopicPartition> partitions, boolean requireStable) {}

    /** {@code offset} -1 when nothing is committed. */
    public record FetchedOffset(
            TopicPartition partition, long offset, int leaderEpoch, String metadata, Errors error) {}

    public record FetchResponse(Errors error, List<FetchedOffset> offsets) {}

    public record DeleteResponse(Errors error, List<PartitionResult> partitions) {}
}
