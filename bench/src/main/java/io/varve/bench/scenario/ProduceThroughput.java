package io.varve.bench.scenario;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.PerfTools;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.Topics;

/** (1) and (2): ProducerPerformance as fast as it goes, 1 KiB records, 6 partitions, linger.ms=5. */
public final class ProduceThroughput implements Scenario {

    static final int PARTITIONS = 6;
    static final Figure THROUGHPUT = Figure.higher("produce throughput", "MiB/s", 1.0);
    static final Figure RECORDS = Figure.higher("produce records", "records/s", null);
    static final Figure AVG_LATENCY = Figure.lower("produce avg latency", "ms", null);
    static final Figure P99_LATENCY = Figure.lower("produce p99 latency (saturated)", "ms", null);

    private final int number;
    private final String acks;

    public ProduceThroughput(int number, String acks) {
        this.number = number;
        this.acks = acks;
    }

    @Override
    public int number() {
        return number;
    }

    @Override
    public String title() {
        return "Produce throughput, 1 KiB records, " + PARTITIONS + " partitions, acks=" + acks + ", linger.ms="
                + Producing.LINGER_MS;
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return "ProducerPerformance --num-records " + sizes.produceRecords() + " --record-size 1024 --throughput -1, "
                + "acks=" + acks + " linger.ms=" + Producing.LINGER_MS + ", other producer settings default"
                + (sizes.warmupRecords() > 0 ? "; " + sizes.warmupRecords() + " untimed warm-up records first" : "");
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        BenchOptions.Sizes sizes = context.sizes();
        RunningBroker broker = context.freshBroker(kind, label);
        try {
            String topic = "bench-produce-" + label;
            Topics.create(broker, topic, PARTITIONS);
            warmUp(context, broker, label, acks);
            ScenarioContext.Meter meter = ScenarioContext.meter(broker);
            PerfTools.ProducerResult result = context.tools().produce(label, broker.bootstrap(), topic,
                    sizes.produceRecords(), ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props(acks));
            Measurement measurement = new Measurement()
                    .put(THROUGHPUT, result.mibPerSec())
                    .put(RECORDS, result.recordsPerSec())
                    .put(AVG_LATENCY, result.avgLatencyMs())
                    .put(P99_LATENCY, result.p99Ms());
            meter.end(measurement, result.records() * ScenarioContext.RECORD_SIZE_BYTES);
            return measurement;
        } finally {
            context.finish(broker);
        }
    }

    /** Untimed records to a topic of their own, so that neither broker is measured while its JIT warms up. */
    static void warmUp(ScenarioContext context, RunningBroker broker, String label, String acks) throws Exception {
        int records = context.sizes().warmupRecords();
        if (records > 0) {
            Topics.create(broker, "bench-warmup-" + label, PARTITIONS);
            context.tools().produce(label + "-warmup", broker.bootstrap(), "bench-warmup-" + label, records,
                    ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props(acks));
        }
    }
}
