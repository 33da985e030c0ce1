package io.varve.bench.driver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.varve.bench.ProcStats;

/**
 * One producer as fast as it goes, acks=all, in phases: each phase is either idempotent and
 * non-transactional (RECORDS_PER_TXN 0, the baseline) or transactional, committing every RECORDS_PER_TXN
 * records. Each phase gets a new producer whose connection, metadata and {@code initTransactions} come
 * before its clock starts; its clock stops when the last {@code commitTransaction} (or the baseline's
 * {@code flush}) returns. A phase stops after its RECORDS, or at the first transaction boundary after
 * MAX_SECONDS. Prints one RESULT line per phase, then checks that every transaction completed: the
 * read_committed end offset (the last stable offset) of every partition reaches the high watermark.
 *
 * <p>The broker's CPU time is read from {@code /proc/BROKER_PID} right at each phase's clock start and stop:
 * only the driver knows when they are, since the untimed warm-up and each producer's set-up run in this
 * same JVM (a warm-up in a JVM of its own would leave the first phase's client cold).
 *
 * <p>usage: TransactionalLoad BOOTSTRAP TOPIC RECORD_BYTES LINGER_MS MAX_SECONDS WARMUP_RECORDS BROKER_PID
 * RECORDS_PER_TXN:RECORDS...
 * <br>WARMUP_RECORDS (0 for none) go first, untimed, in transactions of {@value #WARMUP_RECORDS_PER_TXN}.
 */
public final class TransactionalLoad {

    static final int WARMUP_RECORDS_PER_TXN = 100;
    private static final Duration LSO_TIMEOUT = Duration.ofSeconds(30);
    private static final int BASELINE_TIME_CHECK_RECORDS = 1_000;

    private record Phase(int recordsPerTxn, long records) {
        boolean transactional() {
            return recordsPerTxn > 0;
        }
    }

    private record PhaseResult(long records, long transactions, double seconds, double brokerCpuSeconds,
                               double commitNanosTotal, boolean capped) {
        /** The mean time commitTransaction took (the producer's own metric), or 0 for the baseline. */
        double commitMillisAvg() {
            return transactions == 0 ? 0 : commitNanosTotal / transactions / 1e6;
        }
    }

    private final String bootstrap;
    private final String topic;
    private final byte[] payload;
    private final int lingerMs;
    private final long maxNanos;
    private final long brokerPid;

    private TransactionalLoad(String bootstrap, String topic, int recordBytes, int lingerMs, int maxSeconds,
                              long brokerPid) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.payload = new byte[recordBytes];
        new Random(42).nextBytes(payload);
        this.lingerMs = lingerMs;
        this.maxNanos = TimeUnit.SECONDS.toNanos(maxSeconds);
        this.brokerPid = brokerPid;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 8) {
            System.err.println("usage: TransactionalLoad BOOTSTRAP TOPIC RECORD_BYTES LINGER_MS MAX_SECONDS "
                    + "WARMUP_RECORDS BROKER_PID RECORDS_PER_TXN:RECORDS...");
            System.exit(2);
        }
        TransactionalLoad load = new TransactionalLoad(args[0], args[1], Integer.parseInt(args[2]),
                Integer.parseInt(args[3]), Integer.parseInt(args[4]), Long.parseLong(args[6]));
        long warmupRecords = Long.parseLong(args[5]);
        List<Phase> phases = new ArrayList<>();
        for (int i = 7; i < args.length; i++) {
            String[] spec = args[i].split(":");
            Phase phase = spec.length == 2 ? new Phase(Integer.parseInt(spec[0]), Long.parseLong(spec[1])) : null;
            if (phase == null || phase.recordsPerTxn() < 0 || phase.records() <= 0) {
                throw new IllegalArgumentException("a phase is RECORDS_PER_TXN:RECORDS, not " + args[i]);
            }
            phases.add(phase);
        }

        if (warmupRecords > 0) {
            PhaseResult warm = load.run(new Phase(WARMUP_RECORDS_PER_TXN, warmupRecords), "warmup");
            System.out.println("warm-up: " + warm.records() + " records in " + warm.transactions()
                    + " transactions, untimed");
        }
        for (Phase phase : phases) {
            PhaseResult r = load.run(phase, Integer.toString(phase.recordsPerTxn()));
            System.out.println(String.format(Locale.ROOT,
                    "RESULT recordsPerTxn=%d records=%d transactions=%d seconds=%.3f recordsPerSec=%.1f "
                            + "mibPerSec=%.3f brokerCpuSeconds=%.3f capped=%s commitMsAvg=%.3f",
                    phase.recordsPerTxn(), r.records(), r.transactions(), r.seconds(), r.records() / r.seconds(),
                    r.records() * (double) load.payload.length / r.seconds() / (1024 * 1024), r.brokerCpuSeconds(),
                    r.capped(), r.commitMillisAvg()));
        }
        boolean settled = load.awaitLastStableOffsetAtHighWatermark();
        System.exit(settled ? 0 : 1);
    }

    private PhaseResult run(Phase phase, String name) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-txn-" + name);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        if (phase.transactional()) {
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-" + name);
        }
        AtomicInteger errors = new AtomicInteger();
        AtomicReference<Exception> firstError = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.partitionsFor(topic);  // connect and learn the topic before the clock starts
            if (phase.transactional()) {
                producer.initTransactions();  // finds the coordinator, gets the producer id: not timed
            }
            double brokerCpuAtStart = ProcStats.cpuSeconds(brokerPid);
            long startNanos = System.nanoTime();
            long sent = 0;
            long transactions = 0;
            boolean capped = false;
            while (sent < phase.records()) {
                if (System.nanoTime() - startNanos > maxNanos) {
                    capped = true;
                    break;
                }
                long batch = phase.transactional() ? Math.min(phase.recordsPerTxn(), phase.records() - sent)
                        : Math.min(BASELINE_TIME_CHECK_RECORDS, phase.records() - sent);
                if (phase.transactional()) {
                    producer.beginTransaction();
                }
                for (long i = 0; i < batch; i++) {
                    producer.send(new ProducerRecord<>(topic, payload), (metadata, e) -> {
                        if (e != null && errors.getAndIncrement() == 0) {
                            firstError.set(e);
                        }
                    });
                }
                if (phase.transactional()) {
                    producer.commitTransaction();  // flushes, then ends the transaction; throws if it cannot commit
                    transactions++;
                }
                sent += batch;
            }
            producer.flush();
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            double brokerCpuSeconds = ProcStats.cpuSeconds(brokerPid) - brokerCpuAtStart;
            if (errors.get() > 0) {
                throw new IllegalStateException(errors.get() + " sends failed in phase " + name + ", the first: "
                        + firstError.get(), firstError.get());
            }
            return new PhaseResult(sent, transactions, seconds, brokerCpuSeconds,
                    phase.transactional() ? metricTotal(producer, "txn-commit-time-ns-total") : 0, capped);
        }
    }

    private static double metricTotal(KafkaProducer<?, ?> producer, String name) {
        for (Map.Entry<MetricName, ? extends Metric> metric : producer.metrics().entrySet()) {
            if (metric.getKey().name().equals(name) && metric.getValue().metricValue() instanceof Number value) {
                return value.doubleValue();
            }
        }
        throw new IllegalStateException("the producer has no metric " + name);
    }

    /**
     * After the last commit the broker still writes the commit markers; once they are written, the last
     * stable offset of every partition equals its high watermark. Polls until it does, or LSO_TIMEOUT.
     */
    private boolean awaitLastStableOffsetAtHighWatermark() throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "bench-txn-check");
        try (Admin admin = Admin.create(props)) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            long deadline = System.nanoTime() + LSO_TIMEOUT.toNanos();
            long startNanos = System.nanoTime();
            Map<TopicPartition, Long> stable;
            Map<TopicPartition, Long> high;
            do {
                stable = endOffsets(admin, latest, IsolationLevel.READ_COMMITTED);
                high = endOffsets(admin, latest, IsolationLevel.READ_UNCOMMITTED);
                if (stable.equals(high)) {
                    System.out.println(String.format(Locale.ROOT,
                            "CHECK settled=true lastStableOffsets=highWatermarks after %d ms: %s",
                            (System.nanoTime() - startNanos) / 1_000_000, high));
                    return true;
                }
                Thread.sleep(50);  // a bounded poll of the broker's state, not a synchronisation sleep
            } while (System.nanoTime() < deadline);
            System.out.println("CHECK settled=false after " + LSO_TIMEOUT.toSeconds() + " s: last stable offsets "
                    + stable + ", high watermarks " + high);
            return false;
        }
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, Map<TopicPartition, OffsetSpec> latest,
                                                        IsolationLevel isolation) throws Exception {
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> infos =
                admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(30, TimeUnit.SECONDS);
        Map<TopicPartition, Long> offsets = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
        infos.forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }
}
