package io.varve.broker.txn;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.coordinator.txn.TxnCoordinatorConfig;

/**
 * The transaction coordinator's broker settings, Kafka's keys: {@code transaction.state.log.num.partitions} (50),
 * {@code transaction.state.log.replication.factor} (3, capped to the brokers registered when the topic is created),
 * {@code transaction.state.log.min.isr} (2, the topic's {@code min.insync.replicas}, capped to its replication factor),
 * {@code transaction.state.log.segment.bytes} (100 MiB), {@code transaction.max.timeout.ms} (900000),
 * {@code transaction.abort.timed.out.transaction.cleanup.interval.ms} (10000).
 */
public record TxnCoordinatorSettings(
        int topicPartitions,
        short topicReplicationFactor,
        int topicMinInsyncReplicas,
        int topicSegmentBytes,
        TxnCoordinatorConfig coordinator) {

    public static TxnCoordinatorSettings from(BrokerConfig c) {
        try {
            return new TxnCoordinatorSettings(
                    c.transactionInt("transaction.state.log.num.partitions"),
                    (short) c.transactionInt("transaction.state.log.replication.factor"),
                    c.transactionInt("transaction.state.log.min.isr"),
                    c.transactionInt("transaction.state.log.segment.bytes"),
                    new TxnCoordinatorConfig(
                            c.transactionInt("transaction.max.timeout.ms"),
                            c.transactionInt("transaction.abort.timed.out.transaction.cleanup.interval.ms")));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid transaction coordinator configuration: " + e.getMessage() + ".");
        }
    }
}
