package io.varve.bench.scenario;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * (13): what incremental fetch sessions (KIP-227) save the broker. One consumer assigned every partition of a topic
 * of {@code fleetPartitions} partitions while a producer trickles 100-byte records over them round-robin
 * ({@code io.varve.bench.driver.FetchSessionLoad}); the broker's CPU seconds per minute of that, on a fresh broker
 * with sessions (the default) and on another with {@code max.incremental.fetch.session.cache.slots=0}, which both
 * Kafka and Varve honour by answering every fetch in full.
 */
public final class FetchSessionCost implements Scenario {

    static final Figure WITH = Figure.lower("broker CPU, consumer of many partitions, fetch sessions on", "CPU s/min",
            null);
    static final Figure WITHOUT = Figure.lower("broker CPU, the same with sessions off (cache slots 0)", "CPU s/min",
            null);
    static final Figure SAVED = Figure.higher("broker CPU saved by fetch sessions", "%", null);
    static final Figure FETCHES = Figure.higher("consumer fetches per second, sessions on", "fetches/s", null);
    static final Figure FETCHES_WITHOUT = Figure.higher("consumer fetches per second, sessions off", "fetches/s", null);
    /*
     * An incremental fetch is answered as soon as any partition has data, so with sessions the consumer fetches more
     * often and the CPU per minute can rise while each fetch costs less: the CPU per fetch (the producer's share
     * included, which favours neither side) is the figure sessions are meant to lower.
     */
    static final Figure PER_FETCH_WITH = Figure.lower("broker CPU per consumer fetch, sessions on", "ms", null);
    static final Figure PER_FETCH_WITHOUT = Figure.lower("broker CPU per consumer fetch, sessions off", "ms", null);
    static final Figure PER_FETCH_SAVED = Figure.higher("broker CPU per fetch saved by fetch sessions", "%", null);
    private static final Pattern RESULT = Pattern.compile(
            "RESULT brokerCpuSeconds=(\\S+) seconds=(\\S+) consumed=(\\d+) fetches=(\\S+)");
    private static final String DRIVER = "io.varve.bench.driver.FetchSessionLoad";
    private static final int RATE_PER_SEC = 200;
    private static final int MEASURED_SECONDS = 60;
    private static final int SMOKE_SECONDS = 5;

    private record Run(double cpuPerMinute, double fetchesPerSec) {
        double msPerFetch() {
            return fetchesPerSec <= 0 ? Double.NaN : 1000 * (cpuPerMinute / 60) / fetchesPerSec;
        }
    }

    @Override
    public int number() {
        return 13;
    }

    @Override
    public String title() {
        return "Fetch sessions (KIP-227): broker CPU with a consumer of many partitions, sessions on and off";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return "one topic of " + sizes.fleetPartitions() + " partitions; one KafkaConsumer assigned all of them, a "
                + "producer sending " + RATE_PER_SEC + " records/s of 100 B round-robin; broker CPU over "
                + MEASURED_SECONDS + " s (smoke: " + SMOKE_SECONDS + " s) after a warm-up, on a fresh broker with sessions and on one with "
                + "max.incremental.fetch.session.cache.slots=0";
    }


    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        Run with = run(context, kind, label + "-sessions", Map.of());
        Run without = run(context, kind, label + "-nosessions",
                Map.of("max.incremental.fetch.session.cache.slots", "0"));
        return new Measurement()
                .put(WITH, with.cpuPerMinute())
                .put(WITHOUT, without.cpuPerMinute())
                .put(SAVED, 100 * (1 - with.cpuPerMinute() / without.cpuPerMinute()))
                .put(FETCHES, with.fetchesPerSec())
                .put(FETCHES_WITHOUT, without.fetchesPerSec())
                .put(PER_FETCH_WITH, with.msPerFetch())
                .put(PER_FETCH_WITHOUT, without.msPerFetch())
                .put(PER_FETCH_SAVED, 100 * (1 - with.msPerFetch() / without.msPerFetch()));
    }

    private static Run run(ScenarioContext context, BrokerKind kind, String label, Map<String, String> settings)
            throws Exception {
        RunningBroker broker = context.freshBroker(kind, label, settings);
        try {
            BenchOptions.Sizes sizes = context.sizes();
            String topic = "bench-sessions-" + label;
            Topics.create(broker, topic, sizes.fleetPartitions());
            int seconds = context.smoke() ? SMOKE_SECONDS : MEASURED_SECONDS;
            List<String> args = List.of(broker.bootstrap(), topic, Integer.toString(sizes.fleetPartitions()),
                    Integer.toString(RATE_PER_SEC), Integer.toString(seconds), Long.toString(broker.pid()));
            ChildProcesses.Outcome outcome = context.tools().runTool(label + "-fetch-sessions", DRIVER, args,
                    Duration.ofSeconds(180L + seconds));
            if (!outcome.ok()) {
                throw new IOException("FetchSessionLoad " + (outcome.timedOut() ? "timed out" : "exited with "
                        + outcome.exitCode()) + "; log " + outcome.logFile() + ":\n" + outcome.tail(8));
            }
            Matcher m = RESULT.matcher(outcome.output());
            if (!m.find()) {
                throw new IOException("FetchSessionLoad printed no result; log " + outcome.logFile() + ":\n"
                        + outcome.tail(8));
            }
            double cpu = Double.parseDouble(m.group(1));
            double measured = Double.parseDouble(m.group(2));
            return new Run(60 * cpu / measured, Double.parseDouble(m.group(4)) / measured);
        } finally {
            context.finish(broker);
        }
    }
}
