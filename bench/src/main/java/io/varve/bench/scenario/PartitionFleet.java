package io.varve.bench.scenario;

import java.util.Map;

import io.varve.bench.PerfTools;
import io.varve.bench.RunningBroker;
import io.varve.bench.ScenarioContext;
import io.varve.bench.Topics;

/**
 * Many partitions with light load on each, shared by (5) and (8): one topic of N partitions, then
 * ProducerPerformance paced at a low rate, spread over every partition by the round-robin partitioner.
 */
final class PartitionFleet {

    record Built(long createMillis, PerfTools.ProducerResult load) {
    }

    private PartitionFleet() {
    }

    static Built build(ScenarioContext context, RunningBroker broker, String label) throws Exception {
        int partitions = context.sizes().fleetPartitions();
        String topic = "bench-fleet-" + label;
        long createMillis = Topics.create(broker, topic, partitions);
        Map<String, String> props = Producing.props("all");
        props.put("partitioner.class", "org.apache.kafka.clients.producer.RoundRobinPartitioner");
        // Loading data only: an idempotent producer spreading single-record batches over 1,000 fresh partitions
        // made Kafka answer OUT_OF_ORDER_SEQUENCE_NUMBER until ProducerPerformance timed out (run of 2026-11-29).
        props.put("enable.idempotence", "false");
        long records = (long) partitions * context.sizes().fleetRecordsPerPartition();
        PerfTools.ProducerResult load = context.tools().produce(label + "-fleet", broker.bootstrap(), topic, records,
                ScenarioContext.RECORD_SIZE_BYTES, context.sizes().fleetRatePerSec(), props);
        return new Built(createMillis, load);
    }

    static String describe(io.varve.bench.BenchOptions.Sizes sizes) {
        return "one topic of " + sizes.fleetPartitions() + " partitions; ProducerPerformance "
                + (long) sizes.fleetPartitions() * sizes.fleetRecordsPerPartition() + " records of 1 KiB at "
                + sizes.fleetRatePerSec() + " records/s, acks=all, idempotence off, RoundRobinPartitioner ("
                + sizes.fleetRecordsPerPartition() + " per partition)";
    }
}
