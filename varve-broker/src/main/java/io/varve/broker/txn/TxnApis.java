package io.varve.broker.txn;

import io.varve.broker.api.ApiRegistry;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Registers the transaction APIs with the version ranges this broker implements, those of Kafka 4.4: AddPartitionsToTxn
 * v0-3 (the client path) and v4-5 (the broker path: verifyOnly, or adding a partition for a transactions v2 producer),
 * EndTxn up to v5 (transactions v2: the epoch bump and the new identity in the answer), WriteTxnMarkers v1-2.
 * TxnOffsetCommit is the group coordinator's (GroupApis).
 */
public final class TxnApis {
    private TxnApis() {}

    /** Registers InitProducerId, the transaction APIs and DescribeProducers. */
    public static void register(
            ApiRegistry registry,
            TransactionCoordinatorRuntime runtime,
            TxnHandlers handlers,
            DescribeProducersHandler describeProducers) {
        registry.register(ApiKeys.INIT_PRODUCER_ID, 0, 5, handlers::initProducerId)
                .register(ApiKeys.ADD_PARTITIONS_TO_TXN, 0, 5, handlers::addPartitions)
                .register(ApiKeys.ADD_OFFSETS_TO_TXN, 0, 4, handlers::addOffsets)
                .register(ApiKeys.END_TXN, 0, 5, handlers::endTxn)
                .register(ApiKeys.WRITE_TXN_MARKERS, 1, 2, new WriteTxnMarkersHandler(runtime.markerWriter()))
                .register(ApiKeys.DESCRIBE_TRANSACTIONS, 0, 0, handlers::describe)
                .register(ApiKeys.LIST_TRANSACTIONS, 0, 2, handlers::list)
                .register(ApiKeys.DESCRIBE_PRODUCERS, 0, 0, describeProducers);
    }
}
