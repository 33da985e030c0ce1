package io.varve.bench.scenario;

import java.util.List;
import java.util.UUID;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.PageCache;
import io.varve.bench.PerfTools;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.Topics;

/**
 * (4): ConsumerPerformance over records produced beforehand (untimed), first from the page cache, then
 * again after this broker's segment files were evicted from it. ConsumerPerformance subscribes with a
 * consumer group, so a broker without group support gets "unsupported yet" instead of figures.
 */
public final class ConsumeThroughput implements Scenario {

    static final Figure WARM = Figure.higher("consume throughput, page cache (fetch phase)", "MiB/s", 1.0);
    static final Figure WARM_RECORDS = Figure.higher("consume records, page cache (fetch phase)", "records/s", null);
    static final Figure WARM_WITH_JOIN = Figure.higher("consume throughput incl. group join", "MiB/s", null);
    static final Figure COLD = Figure.higher("consume throughput, cache dropped (fetch phase)", "MiB/s", 1.0);
    private static final List<Figure> ALL = List.of(WARM, WARM_RECORDS, WARM_WITH_JOIN, COLD);

    @Override
    public int number() {
        return 4;
    }

    @Override
    public String title() {
        return "Consume throughput, from page cache and after dropping it";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return "ProducerPerformance loads " + sizes.consumeRecords() + " records of 1 KiB into 6 partitions (acks=1, "
                + "untimed); ConsumerPerformance --messages " + sizes.consumeRecords() + " with a new group, twice: "
                + "warm, then after fsync + fadvise(DONTNEED) of the broker's segment files";
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        int records = context.sizes().consumeRecords();
        RunningBroker broker = context.freshBroker(kind, label);
        try {
            String topic = "bench-consume-" + label;
            Topics.create(broker, topic, ProduceThroughput.PARTITIONS);
            context.tools().produce(label + "-load", broker.bootstrap(), topic, records,
                    ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props("1"));
            Measurement measurement = new Measurement();
            ScenarioContext.Meter meter = ScenarioContext.meter(broker);
            PerfTools.ConsumerResult warm;
            try {
                warm = context.tools().consume(label + "-warm", broker.bootstrap(), topic, records,
                        "bench-" + UUID.randomUUID());
            } catch (PerfTools.ToolFailure e) {
                String reason = (e.unsupported() ? "unsupported yet: " : "failed: ") + ProduceLatency.firstLine(e.getMessage());
                measurement.missing(ALL, reason);
                meter.end(measurement, 0);
                return measurement;
            }
            measurement.put(WARM, warm.fetchMibPerSec())
                    .put(WARM_RECORDS, warm.fetchRecordsPerSec())
                    .put(WARM_WITH_JOIN, warm.mibPerSec());
            meter.end(measurement, (long) (warm.mib() * ScenarioContext.MIB));
            try {
                PageCache.dropSegments(broker.dataDir());
                PerfTools.ConsumerResult cold = context.tools().consume(label + "-cold", broker.bootstrap(),
                        topic, records, "bench-" + UUID.randomUUID());
                measurement.put(COLD, cold.fetchMibPerSec());
            } catch (java.io.IOException e) {
                measurement.missing(List.of(COLD), "not measured: " + ProduceLatency.firstLine(e.getMessage()));
            }
            return measurement;
        } finally {
            context.finish(broker);
        }
    }
}
