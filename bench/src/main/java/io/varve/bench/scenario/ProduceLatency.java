package io.varve.bench.scenario;

import java.util.List;
import java.util.Map;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.PerfTools;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.Topics;

/**
 * (3): latency below saturation. ProducerPerformance paced at a fixed rate (acks=all, linger.ms=5) gives
 * the produce-acknowledgement percentiles; EndToEndLatency (one record at a time, acks=all) gives
 * produce-to-consume percentiles. Both tools report whole milliseconds.
 */
public final class ProduceLatency implements Scenario {

    static final Figure P50 = Figure.lower("produce p50 latency at fixed rate", "ms", null);
    static final Figure P99 = Figure.lower("produce p99 latency at fixed rate", "ms", 1.0);
    static final Figure P999 = Figure.lower("produce p99.9 latency at fixed rate", "ms", null);
    static final Figure ACHIEVED = Figure.higher("achieved rate (should equal the target)", "records/s", null);
    static final Figure E2E_P50 = Figure.lower("end-to-end p50 latency", "ms", null);
    static final Figure E2E_P99 = Figure.lower("end-to-end p99 latency", "ms", 1.0);
    static final Figure E2E_P999 = Figure.lower("end-to-end p99.9 latency", "ms", null);

    @Override
    public int number() {
        return 3;
    }

    @Override
    public String title() {
        return "Latency at a fixed rate below saturation, p50/p99/p99.9";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return "ProducerPerformance --throughput " + sizes.latencyRatePerSec() + " --num-records "
                + sizes.latencyRecords() + " --record-size 1024, acks=all linger.ms=5, " + ProduceThroughput.PARTITIONS
                + " partitions; then EndToEndLatency " + sizes.endToEndMessages() + " messages, acks=all, 1 KiB, 1 partition";
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        BenchOptions.Sizes sizes = context.sizes();
        RunningBroker broker = context.freshBroker(kind, label);
        try {
            String topic = "bench-latency-" + label;
            String e2eTopic = "bench-e2e-" + label;
            Topics.create(broker, Map.of(topic, ProduceThroughput.PARTITIONS, e2eTopic, 1));
            ProduceThroughput.warmUp(context, broker, label, "all");
            ScenarioContext.Meter meter = ScenarioContext.meter(broker);
            PerfTools.ProducerResult paced = context.tools().produce(label, broker.bootstrap(), topic,
                    sizes.latencyRecords(), ScenarioContext.RECORD_SIZE_BYTES, sizes.latencyRatePerSec(),
                    Producing.props("all"));
            Measurement measurement = new Measurement()
                    .put(P50, paced.p50Ms())
                    .put(P99, paced.p99Ms())
                    .put(P999, paced.p999Ms())
                    .put(ACHIEVED, paced.recordsPerSec());
            long bytesMoved = paced.records() * ScenarioContext.RECORD_SIZE_BYTES;
            try {
                PerfTools.EndToEndResult e2e = context.tools().endToEnd(label, broker.bootstrap(), e2eTopic,
                        sizes.endToEndMessages(), "all", ScenarioContext.RECORD_SIZE_BYTES);
                measurement.put(E2E_P50, e2e.p50Ms()).put(E2E_P99, e2e.p99Ms()).put(E2E_P999, e2e.p999Ms());
                bytesMoved += 2L * sizes.endToEndMessages() * ScenarioContext.RECORD_SIZE_BYTES;  // in and out
            } catch (PerfTools.ToolFailure e) {
                measurement.missing(List.of(E2E_P50, E2E_P99, E2E_P999),
                        (e.unsupported() ? "unsupported yet: " : "failed: ") + firstLine(e.getMessage()));
            }
            meter.end(measurement, bytesMoved);
            return measurement;
        } finally {
            context.finish(broker);
        }
    }

    static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
