package io.varve.bench.scenario;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;

/**
 * (8): start-up of a broker that holds many partitions. The fleet is built and the broker stopped cleanly
 * (SIGTERM); the clock then runs from the restarted process's spawn (JVM start included, for both) to the
 * first ApiVersions answer, and to the first Metadata answer that shows every partition with a leader.
 */
public final class Startup implements Scenario {

    static final Figure TO_API_VERSIONS = Figure.lower("start-up until ApiVersions answers", "ms", null);
    static final Figure TO_ALL_LEADERS = Figure.lower("start-up until Metadata shows every partition led", "ms", 0.5);
    static final Figure START_CPU = Figure.lower("broker CPU used by start-up", "CPU s", null);

    @Override
    public int number() {
        return 8;
    }

    @Override
    public String title() {
        return "Start-up time of a broker holding many partitions";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return PartitionFleet.describe(sizes) + "; clean stop; restart timed from process spawn";
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        RunningBroker first = context.freshBroker(kind, label + "-build");
        int partitions;
        try {
            PartitionFleet.build(context, first, label);
            partitions = first.probe().metadata().partitions();  // the fleet, plus earlier topics in smoke mode
        } catch (Exception e) {
            context.finish(first);
            throw e;
        }
        first.stop();
        RunningBroker broker = context.restartBroker(kind, label + "-restart");
        try {
            long apiVersionsMillis = broker.awaitApiVersions(ScenarioContext.READY_TIMEOUT);
            long allLeadersMillis = broker.awaitMetadata(ScenarioContext.READY_TIMEOUT,
                    s -> s.partitionsWithLeader() >= partitions, "show " + partitions + " partitions with a leader");
            Measurement measurement = new Measurement()
                    .put(TO_API_VERSIONS, apiVersionsMillis)
                    .put(TO_ALL_LEADERS, allLeadersMillis)
                    .put(START_CPU, broker.cpuSeconds());
            measurement.put(Figure.PEAK_RSS, broker.peakRssBytes() / ScenarioContext.MIB);
            return measurement;
        } finally {
            context.finish(broker);
        }
    }
}
