package io.varve.bench.scenario;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.ChildProcesses;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.Topics;

/**
 * (6): many concurrent producer connections at a fixed total rate. Kafka's ProducerPerformance drives one
 * producer per JVM, so this scenario uses the harness's own driver ({@code io.varve.bench.driver.ManyProducers}),
 * N KafkaProducer clients in one JVM, acks=all, linger.ms=5, 1 KiB records.
 */
public final class ManyProducerConnections implements Scenario {

    static final Figure THROUGHPUT = Figure.higher("achieved throughput (should equal the target)", "MiB/s", null);
    static final Figure P50 = Figure.lower("produce p50 latency", "ms", null);
    static final Figure P99 = Figure.lower("produce p99 latency", "ms", null);
    static final Figure P999 = Figure.lower("produce p99.9 latency", "ms", null);
    private static final Pattern RESULT = Pattern.compile(
            "RESULT complete=(\\w+) records=(\\d+) errors=(\\d+) seconds=\\S+ recordsPerSec=\\S+ mibPerSec=(\\S+) "
                    + "p50=(\\S+) p99=(\\S+) p999=(\\S+)");

    @Override
    public int number() {
        return 6;
    }

    @Override
    public String title() {
        return "Concurrent producer connections";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return sizes.producerConnections() + " KafkaProducer clients (own driver, one JVM) sharing "
                + sizes.manyProducersRatePerSec() + " records/s of 1 KiB for " + sizes.manyProducersSeconds()
                + " s, acks=all linger.ms=5, one topic of 6 partitions";
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        BenchOptions.Sizes sizes = context.sizes();
        RunningBroker broker = context.freshBroker(kind, label);
        try {
            String topic = "bench-many-" + label;
            Topics.create(broker, topic, ProduceThroughput.PARTITIONS);
            ScenarioContext.Meter meter = ScenarioContext.meter(broker);
            ChildProcesses.Outcome outcome = context.tools().runTool(label + "-many-producers",
                    "io.varve.bench.driver.ManyProducers",
                    List.of(broker.bootstrap(), topic, Integer.toString(sizes.producerConnections()),
                            Integer.toString(sizes.manyProducersRatePerSec()),
                            Integer.toString(sizes.manyProducersSeconds()),
                            Integer.toString(ScenarioContext.RECORD_SIZE_BYTES), "all"),
                    Duration.ofSeconds(sizes.manyProducersSeconds() + 240L));
            Matcher m = RESULT.matcher(outcome.output());
            if (!m.find() || !"true".equals(m.group(1)) || !"0".equals(m.group(3))) {
                throw new java.io.IOException("ManyProducers did not complete cleanly; log " + outcome.logFile()
                        + ":\n" + outcome.tail(8));
            }
            Measurement measurement = new Measurement()
                    .put(THROUGHPUT, Double.parseDouble(m.group(4)))
                    .put(P50, Double.parseDouble(m.group(5)))
                    .put(P99, Double.parseDouble(m.group(6)))
                    .put(P999, Double.parseDouble(m.group(7)));
            meter.end(measurement, Long.parseLong(m.group(2)) * ScenarioContext.RECORD_SIZE_BYTES);
            return measurement;
        } finally {
            context.finish(broker);
        }
    }
}
