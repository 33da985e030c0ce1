package io.varve.coordinator.txn;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/** Requests and responses of the transaction coordinator, free of wire classes. */
public final class TxnApi {
    private TxnApi() {}

    /** {@code producerId}/{@code epoch} are -1 unless the client sends its current identity (v3+). */
    public record InitProducerIdRequest(String transactionalId, int timeoutMs, long producerId, short epoch) {}

    public record InitProducerIdResponse(Errors error, long producerId, short epoch) {
        static InitProducerIdResponse error(Errors error) {
            return new InitProducerIdResponse(error, -1, (short) -1);
        }
    }

    public record AddPartitionsRequest(
            String transactionalId, long producerId, short epoch, Set<TopicPartition> partitions) {}

    /** {@code v2}: the client runs transactions v2 (EndTxn v5): the coordinator bumps the epoch as it ends. */
    public record EndTxnRequest(String transactionalId, long producerId, short epoch, boolean commit, boolean v2) {
        public EndTxnRequest(String transactionalId, long producerId, short epoch, boolean commit) {
            this(transactionalId, producerId, epoch, commit, false);
        }
    }

    /** EndTxn's answer; from v5 (transactions v2) with the identity the producer continues with. */
    public record EndTxnResponse(Errors error, long producerId, short epoch) {
        static EndTxnResponse error(Errors error) {
            return new EndTxnResponse(error, -1, (short) -1);
        }
    }

    /** Write a COMMIT or ABORT marker of the producer to every partition, then report with {@code markersWritten}. */
    public record MarkerRequest(
            String transactionalId,
            long producerId,
            short epoch,
            int coordinatorEpoch,
            boolean commit,
            Set<TopicPartition> partitions) {}

    /** One line of DescribeTransactions; {@code error} TRANSACTIONAL_ID_NOT_FOUND for unknown ids. */
    public record TxnDescription(
            String transactionalId,
            Errors error,
            TxnState state,
            int timeoutMs,
            long txnStartMs,
            long producerId,
            short epoch,
            Set<TopicPartition> partitions) {}

    /** One line of ListTransactions. */
    public record ListedTxn(String transactionalId, long producerId, TxnState state) {}

    public record ListFilter(Set<String> states, Set<Long> producerIds, long minDurationMs) {
        public static ListFilter all() {
            return new ListFilter(Set.of(), Set.of(), -1);
        }
    }

    public record ListResponse(List<ListedTxn> transactions, List<String> unknownStates) {}
}
