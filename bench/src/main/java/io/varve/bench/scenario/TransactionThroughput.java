package io.varve.bench.scenario;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * (9): the throughput cost of transactions. One producer ({@code io.varve.bench.driver.TransactionalLoad}),
 * acks=all, linger.ms=5, 1 KiB records into 6 partitions, transactional committing every 1, 100 and 10,000
 * records, then idempotent and non-transactional (the baseline; last, so that a run without warm-up does not
 * charge the client's own JIT warm-up to it alone). Each broker's transactional
 * records/s are also given as a percentage of its own baseline, so the Varve/Kafka ratio of that share
 * compares what transactions cost on each broker.
 */
public final class TransactionThroughput implements Scenario {

    /** Records per transaction of the transactional phases, in the order they run (the baseline after them). */
    static final List<Integer> RECORDS_PER_TXN = List.of(1, 100, 10_000);
    static final Figure BASELINE_RECORDS = Figure.higher("non-transactional (idempotent) produce", "records/s", null);
    static final Figure BASELINE_MIB = Figure.higher("non-transactional (idempotent) throughput", "MiB/s", null);
    private static final Pattern RESULT = Pattern.compile(
            "RESULT recordsPerTxn=(\\d+) records=(\\d+) transactions=\\d+ seconds=\\S+ recordsPerSec=(\\S+) "
                    + "mibPerSec=(\\S+) brokerCpuSeconds=(\\S+) capped=\\w+");
    private static final String DRIVER = "io.varve.bench.driver.TransactionalLoad";

    /** The three figures of one transaction size. */
    private record TxnFigures(Figure records, Figure mib, Figure shareOfBaseline) {
        static TxnFigures of(int recordsPerTxn) {
            String name = "commit every " + recordsPerTxn + (recordsPerTxn == 1 ? " record" : " records");
            return new TxnFigures(Figure.higher(name + ": produce", "records/s", null),
                    Figure.higher(name + ": throughput", "MiB/s", null),
                    Figure.higher(name + ": records/s as share of non-transactional", "%", null));
        }
    }

    private static final Map<Integer, TxnFigures> FIGURES = figures();

    private static Map<Integer, TxnFigures> figures() {
        Map<Integer, TxnFigures> figures = new HashMap<>();
        for (int n : RECORDS_PER_TXN) {
            figures.put(n, TxnFigures.of(n));
        }
        return figures;
    }

    /** What one phase of the driver printed. */
    private record PhaseResult(long records, double recordsPerSec, double mibPerSec, double brokerCpuSeconds) {
    }

    @Override
    public int number() {
        return 9;
    }

    @Override
    public String title() {
        return "Throughput cost of transactions, 1 KiB records, " + ProduceThroughput.PARTITIONS
                + " partitions, acks=all";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return "One KafkaProducer (own driver), linger.ms=" + Producing.LINGER_MS + ", as fast as it goes: "
                + "transactional committing every 1 record (" + sizes.txnSingleRecordTransactions() + " transactions), "
                + "100 and 10000 records (" + sizes.txnRecords() + " records each), then " + sizes.txnRecords()
                + " records idempotent and non-transactional; each phase a new producer, timed from the first send to "
                + "the last commit's (or flush's) return, stopped at the first commit after "
                + sizes.txnPhaseMaxSeconds() + " s"
                + (sizes.warmupRecords() > 0 ? "; " + sizes.warmupRecords() + " untimed warm-up records in "
                + "transactions of 100 first" : "");
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        BenchOptions.Sizes sizes = context.sizes();
        RunningBroker broker = context.freshBroker(kind, label);
        try {
            String topic = "bench-txn-" + label;
            Topics.create(broker, topic, ProduceThroughput.PARTITIONS);
            List<String> phases = new ArrayList<>();
            for (int n : RECORDS_PER_TXN) {
                phases.add(n + ":" + (n == 1 ? sizes.txnSingleRecordTransactions() : sizes.txnRecords()));
            }
            phases.add("0:" + sizes.txnRecords());
            ChildProcesses.Outcome outcome = runDriver(context, broker, label + "-txn", topic, phases);
            Map<Integer, PhaseResult> results = parse(outcome, phases.size());
            PhaseResult baseline = results.get(0);
            Measurement measurement = new Measurement()
                    .put(BASELINE_RECORDS, baseline.recordsPerSec())
                    .put(BASELINE_MIB, baseline.mibPerSec());
            long recordsMoved = baseline.records();
            double brokerCpuSeconds = baseline.brokerCpuSeconds();
            for (int n : RECORDS_PER_TXN) {
                PhaseResult phase = results.get(n);
                TxnFigures figures = FIGURES.get(n);
                measurement.put(figures.records(), phase.recordsPerSec())
                        .put(figures.mib(), phase.mibPerSec())
                        .put(figures.shareOfBaseline(), 100 * phase.recordsPerSec() / baseline.recordsPerSec());
                recordsMoved += phase.records();
                brokerCpuSeconds += phase.brokerCpuSeconds();
            }
            // The driver read the broker's CPU time around each phase's clock: warm-up and set-up left out.
            ScenarioContext.putResourceFigures(broker, measurement, brokerCpuSeconds,
                    recordsMoved * ScenarioContext.RECORD_SIZE_BYTES);
            return measurement;
        } finally {
            context.finish(broker);
        }
    }

    private static ChildProcesses.Outcome runDriver(ScenarioContext context, RunningBroker broker, String logLabel,
                                                    String topic, List<String> phases) throws IOException {
        BenchOptions.Sizes sizes = context.sizes();
        int maxSeconds = sizes.txnPhaseMaxSeconds();
        List<String> args = new ArrayList<>(List.of(broker.bootstrap(), topic,
                Integer.toString(ScenarioContext.RECORD_SIZE_BYTES), Integer.toString(Producing.LINGER_MS),
                Integer.toString(maxSeconds), Integer.toString(sizes.warmupRecords()), Long.toString(broker.pid())));
        args.addAll(phases);
        // Warm-up and phases stop within their cap plus one commit; the rest is JVM start, set-up and the LSO check.
        Duration timeout = Duration.ofSeconds(120L + 2L * maxSeconds * (phases.size() + 1));
        ChildProcesses.Outcome outcome = context.tools().runTool(logLabel, DRIVER, args, timeout);
        if (!outcome.ok()) {
            throw new IOException("TransactionalLoad " + (outcome.timedOut() ? "timed out" : "exited with "
                    + outcome.exitCode()) + "; log " + outcome.logFile() + ":\n" + outcome.tail(8));
        }
        return outcome;
    }

    private static Map<Integer, PhaseResult> parse(ChildProcesses.Outcome outcome, int phases) throws IOException {
        Map<Integer, PhaseResult> results = new HashMap<>();
        Matcher m = RESULT.matcher(outcome.output());
        while (m.find()) {
            results.put(Integer.parseInt(m.group(1)), new PhaseResult(Long.parseLong(m.group(2)),
                    Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5))));
        }
        if (results.size() != phases) {
            throw new IOException("TransactionalLoad printed " + results.size() + " of " + phases
                    + " results; log " + outcome.logFile() + ":\n" + outcome.tail(8));
        }
        return results;
    }
}
