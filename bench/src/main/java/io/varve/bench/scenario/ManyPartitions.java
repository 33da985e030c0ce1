package io.varve.bench.scenario;

import java.util.ArrayList;
import java.util.List;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.WireProbe;

/** (5): the memory and metadata cost of many partitions under light load. */
public final class ManyPartitions implements Scenario {

    static final Figure CREATE = Figure.lower("create topic until every partition has a leader", "ms", null);
    static final Figure METADATA = Figure.lower("Metadata request for all topics (median of 20)", "ms", null);
    static final Figure P99 = Figure.lower("produce p99 latency under light load", "ms", null);
    private static final int METADATA_SAMPLES = 20;

    @Override
    public int number() {
        return 5;
    }

    @Override
    public String title() {
        return "Many partitions with light load on each (memory and metadata cost)";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return PartitionFleet.describe(sizes);
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        RunningBroker broker = context.freshBroker(kind, label);
        try {
            ScenarioContext.Meter meter = ScenarioContext.meter(broker);
            PartitionFleet.Built fleet = PartitionFleet.build(context, broker, label);
            Measurement measurement = new Measurement()
                    .put(CREATE, fleet.createMillis())
                    .put(P99, fleet.load().p99Ms())
                    .put(METADATA, metadataMillis(broker));
            meter.end(measurement, fleet.load().records() * ScenarioContext.RECORD_SIZE_BYTES);
            return measurement;
        } finally {
            context.finish(broker);
        }
    }

    private static double metadataMillis(RunningBroker broker) throws Exception {
        WireProbe probe = broker.probe();
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < METADATA_SAMPLES; i++) {
            long start = System.nanoTime();
            probe.metadata();  // includes a TCP connect on loopback, the same for both brokers
            millis.add((System.nanoTime() - start) / 1e6);
        }
        millis.sort(null);
        return millis.get(METADATA_SAMPLES / 2);
    }
}
