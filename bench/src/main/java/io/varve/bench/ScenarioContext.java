package io.varve.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** What a scenario gets to work with: sizes, Kafka's tools, and broker starts that are always cleaned up. */
public final class ScenarioContext {

    public static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
    public static final int RECORD_SIZE_BYTES = 1024;
    public static final double GIB = 1024.0 * 1024 * 1024;
    public static final double MIB = 1024.0 * 1024;

    private final BenchOptions options;
    private final BrokerLauncher launcher;
    private final PerfTools tools;
    /** Smoke mode only: one broker per kind serves every scenario, to keep the smoke run short. */
    private final Map<BrokerKind, RunningBroker> shared = new EnumMap<>(BrokerKind.class);

    ScenarioContext(BenchOptions options, BrokerLauncher launcher, PerfTools tools) {
        this.options = options;
        this.launcher = launcher;
        this.tools = tools;
    }

    public BenchOptions.Sizes sizes() {
        return options.sizes();
    }

    /** bench/work: downloads, data, logs, certificates. */
    public java.nio.file.Path workDir() {
        return options.workDir();
    }

    public boolean smoke() {
        return options.smoke();
    }

    public PerfTools tools() {
        return tools;
    }

    /** For scenarios that start several brokers as one cluster ({@link BrokerLauncher#startCluster}). */
    public BrokerLauncher launcher() {
        return launcher;
    }

    /**
     * Starts {@code kind} on an empty data directory and waits until it answers Metadata. In smoke mode the
     * broker is kept for the next scenario (scenarios name their topics after their label, so they never
     * collide); its peak RSS then covers every scenario so far, which the smoke report warns about.
     */
    public RunningBroker freshBroker(BrokerKind kind, String label) throws IOException {
        RunningBroker kept = shared.get(kind);
        if (kept != null && kept.isAlive()) {
            return kept;
        }
        RunningBroker broker = launcher.startFresh(kind, label);
        try {
            broker.awaitReady(READY_TIMEOUT);
        } catch (IOException | RuntimeException e) {
            broker.stop();
            throw e;
        }
        if (options.smoke()) {
            shared.put(kind, broker);
        }
        return broker;
    }

    /**
     * Starts {@code kind} on an empty data directory with {@code settings} over the shared ones, never kept for
     * another scenario (a broker smoke mode kept is stopped first: they share the data directory).
     */
    public RunningBroker freshBroker(BrokerKind kind, String label, Map<String, String> settings) throws IOException {
        RunningBroker kept = shared.remove(kind);
        if (kept != null) {
            finish(kept);
        }
        RunningBroker broker = launcher.startFresh(kind, label, settings);
        try {
            broker.awaitReady(READY_TIMEOUT);
        } catch (IOException | RuntimeException e) {
            broker.stop();
            throw e;
        }
        return broker;
    }

    /**
     * Starts {@code kind} on an empty data directory with {@code extras} listening beside PLAINTEXT, and waits until it
     * answers Metadata (on PLAINTEXT). Never kept for another scenario, not even in smoke mode: no other scenario
     * wants those listeners.
     */
    public RunningBroker freshBroker(BrokerKind kind, String label, List<BrokerLauncher.ExtraListener> extras)
            throws IOException {
        RunningBroker kept = shared.remove(kind); // it would share the data directory this start empties
        if (kept != null) {
            finish(kept);
        }
        RunningBroker broker = launcher.startFresh(kind, label, extras);
        try {
            broker.awaitReady(READY_TIMEOUT);
        } catch (IOException | RuntimeException e) {
            broker.stop();
            throw e;
        }
        return broker;
    }

    /** Starts {@code kind} again on its previous data; does not wait, so the caller can time the start-up. */
    public RunningBroker restartBroker(BrokerKind kind, String label) throws IOException {
        return launcher.restart(kind, label);
    }

    /** Stops the broker by its PID and discards its data directory (in smoke mode: unless it is kept). */
    public void finish(RunningBroker broker) throws IOException {
        if (shared.get(broker.kind()) == broker && broker.isAlive()) {
            return;
        }
        shared.remove(broker.kind(), broker);
        broker.stop();
        launcher.discardData(broker.kind());
    }

    /** Stops the brokers smoke mode kept. */
    void close() throws IOException {
        for (RunningBroker broker : List.copyOf(shared.values())) {
            shared.remove(broker.kind());
            finish(broker);
        }
    }

    /**
     * Starts metering the broker's own CPU time; {@link Meter#end} adds (7)'s figures: peak RSS so far and
     * CPU-seconds per GiB of record payload the broker moved (in plus out) since {@link #meter}.
     */
    public static Meter meter(RunningBroker broker) throws IOException {
        return new Meter(broker, broker.cpuSeconds());
    }

    public static final class Meter {
        private final RunningBroker broker;
        private final double cpuSecondsAtStart;

        private Meter(RunningBroker broker, double cpuSecondsAtStart) {
            this.broker = broker;
            this.cpuSecondsAtStart = cpuSecondsAtStart;
        }

        public void end(Measurement measurement, long payloadBytesMoved) throws IOException {
            putResourceFigures(broker, measurement, broker.cpuSeconds() - cpuSecondsAtStart, payloadBytesMoved);
        }
    }

    /**
     * (7)'s figures when the broker's CPU seconds over the timed phase were read by a load driver that
     * alone knows when its clock runs (it reads the same {@code /proc} counter, see {@link ProcStats}).
     */
    public static void putResourceFigures(RunningBroker broker, Measurement measurement, double cpuSeconds,
                                          long payloadBytesMoved) throws IOException {
        measurement.put(Figure.PEAK_RSS, broker.peakRssBytes() / MIB);
        if (payloadBytesMoved > 0) {
            measurement.put(Figure.CPU_PER_GIB, cpuSeconds / (payloadBytesMoved / GIB));
        }
    }
}
