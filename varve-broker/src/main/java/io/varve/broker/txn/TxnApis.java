package io.varve.broker.txn;

import io.varve.broker.api.ApiRegistry;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Registers the transaction APIs with the version ranges this broker implements. Transaction version 1 only
 * (KIP-890 part 2 is not advertised): AddPartitionsToTxn v0-3 (the client path) and v4 (the broker path, with
 * verifyOnly), not v5; EndTxn up to v4.
 */
public final class TxnApis {
    private TxnApis() {
    }

    /**
     * Registers InitProducerId and, when {@code transactionsEnabled}, the transaction APIs. Until transaction
     * markers reach the logs and read_committed fetches stop at the last stable offset, transactions are off by
     * default: a transactional producer then fails fast (no transaction coordinator) instead of committing or
     * aborting data that consumers could not tell apart.
     */
    public static void register(ApiRegistry registry, TransactionCoordinatorRuntime runtime, TxnHandlers handlers,
                                boolean transactionsEnabled) {
        if (!transactionsEnabled) {
            registry.register(ApiKeys.INIT_PRODUCER_ID, 0, 5, handlers::initProducerId);
            return;
        }
        registry.register(ApiKeys.INIT_PRODUCER_ID, 0, 5, handlers::initProducerId)
                .register(ApiKeys.ADD_PARTITIONS_TO_TXN, 0, 4, handlers::addPartitions)
                .register(ApiKeys.ADD_OFFSETS_TO_TXN, 0, 4, handlers::addOffsets)
                .register(ApiKeys.END_TXN, 0, 4, handlers::endTxn)
                .register(ApiKeys.WRITE_TXN_MARKERS, 1, 1, new WriteTxnMarkersHandler(runtime.markerWriter()))
                .register(ApiKeys.DESCRIBE_TRANSACTIONS, 0, 0, handlers::describe)
                .register(ApiKeys.LIST_TRANSACTIONS, 0, 2, handlers::list);
    }
}
