package io.varve.it.txn;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction anomaly test, in the spirit of Jepsen's 2024 analysis of Kafka: transactional producers (kafka-clients
 * 4.4) write through a {@link FaultProxy} that delays Produce and EndTxn requests, drops their responses (the client
 * retries), duplicates them, and replays them late — every committing EndTxn once more while the same producer's next
 * transaction has written its first record, every transaction's first Produce once more after the transaction ended.
 * Even transactions commit, odd ones abort. Everything is read back with read_committed and checked: no aborted read
 * (a record of an aborted transaction visible), no lost commit (a record of a committed transaction missing), no torn
 * transaction (some of a transaction's records visible, others not), no duplicate.
 *
 * <p>With transaction version 2 (KIP-890 part 2) the late EndTxn names an epoch the coordinator has bumped past and is
 * fenced, so every check holds. With transaction version 1 the same late EndTxn names the current epoch and commits
 * the next transaction early, with its first record: that transaction's client then aborts it (or fails trying, its
 * later records refused), and its first record stays readable — the aborted read (Jepsen's "G1a") and the torn
 * transaction version 1 permits. The late Produce does no harm under either
 * version: the partition leader's verification (KIP-890 part 1, on by default) and the producer-id sequence checks
 * refuse it, so version 1 shows no duplicate and no hanging transaction either; the test asserts that too.
 */
class TransactionAnomalyIT {
    private static final String TOPIC = "anomaly";
    private static final int PARTITIONS = 3;
    private static final int PRODUCERS = 4;
    private static final int TRANSACTIONS = 10;
    private static final int RECORDS = 3;
    private static final long SEED = 20240101L;

    @TempDir
    Path dir;

    @Test
    void withTransactionVersion2NoDelayedDroppedOrReplayedRequestBreaksATransaction() throws Exception {
        History history = run((short) 2);

        assertThat(history.abortedReads()).as(history.summary()).isEmpty();
        assertThat(history.lostCommits()).as(history.summary()).isEmpty();
        assertThat(history.tornTransactions()).as(history.summary()).isEmpty();
        assertThat(history.duplicates()).as(history.summary()).isEmpty();
        // the late commits reached the coordinator and were fenced, never accepted
        assertThat(history.lateEndTxnAnswers()).as(history.summary()).containsKey(Errors.PRODUCER_FENCED);
        assertThat(history.lateEndTxnAnswers()).as(history.summary()).doesNotContainKey(Errors.NONE);
        assertThat(history.committed()).as(history.summary()).isPositive();
    }

    @Test
    void withTransactionVersion1ALateCommitEndsTheNextTransactionEarlySoAnAbortedTornTransactionIsRead()
            throws Exception {
        History history = run((short) 1);

        // the late commits were accepted: each committed the next, aborting, transaction with its first record, and
        // the records sent after it were refused, so that transaction is both read though aborted and torn
        assertThat(history.lateEndTxnAnswers()).as(history.summary()).containsKey(Errors.NONE);
        assertThat(history.abortedReads()).as(history.summary()).isNotEmpty();
        assertThat(history.tornTransactions()).as(history.summary()).isNotEmpty();
        // what version 1 still guarantees here: verification and sequence checks keep late produces out
        assertThat(history.duplicates()).as(history.summary()).isEmpty();
        assertThat(history.lostCommits()).as(history.summary()).isEmpty();
    }

    /** Even transactions commit, odd ones abort. */
    private static boolean commits(String txn) {
        return Integer.parseInt(txn.substring(txn.indexOf("-t") + 2)) % 2 == 0;
    }

    enum Outcome {
        COMMITTED,
        ABORTED,
        UNKNOWN
    }

    record History(
            Map<String, Outcome> outcomes,
            Map<String, Integer> visible,
            List<String> duplicates,
            Map<Errors, Integer> lateEndTxnAnswers,
            String proxy) {
        /**
         * Transactions with a visible record that their client never asked to commit (it aborted them, or failed
         * while aborting them): nothing may ever commit those.
         */
        List<String> abortedReads() {
            return outcomes.keySet().stream()
                    .filter(txn -> !commits(txn) && visible.getOrDefault(txn, 0) > 0)
                    .sorted()
                    .toList();
        }

        List<String> lostCommits() {
            return outcomes.entrySet().stream()
                    .filter(e -> e.getValue() == Outcome.COMMITTED && visible.getOrDefault(e.getKey(), 0) < RECORDS)
                    .map(Map.Entry::getKey)
                    .sorted()
                    .toList();
        }

        List<String> tornTransactions() {
            return visible.entrySet().stream()
                    .filter(e -> e.getValue() > 0 && e.getValue() < RECORDS)
                    .map(Map.Entry::getKey)
                    .sorted()
                    .toList();
        }

        long committed() {
            return outcomes.values().stream()
                    .filter(o -> o == Outcome.COMMITTED)
                    .count();
        }

        String summary() {
            Map<Outcome, Long> byOutcome = new HashMap<>();
            outcomes.values().forEach(o -> byOutcome.merge(o, 1L, Long::sum));
            return "outcomes " + byOutcome + "; aborted reads " + abortedReads() + "; lost commits " + lostCommits()
                    + "; torn " + tornTransactions() + "; duplicates " + duplicates + "; proxy: " + proxy;
        }
    }

    private History run(short transactionVersion) throws Exception {
        try (FaultProxy proxy = new FaultProxy(SEED, 0.1, 0.1)) {
            try (TestBroker broker = TestBroker.start(
                    dir.resolve("tv" + transactionVersion),
                    Map.of("advertised.listeners", "PLAINTEXT://127.0.0.1:" + proxy.port()))) {
                proxy.start(broker.port());
                String bootstrap = "127.0.0.1:" + proxy.port();
                try (Admin admin = broker.admin()) {
                    setTransactionVersion(admin, transactionVersion);
                    admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                            .all()
                            .get(30, TimeUnit.SECONDS);
                }
                Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
                ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS);
                try {
                    List<Future<?>> runs = new ArrayList<>();
                    for (int p = 0; p < PRODUCERS; p++) {
                        int producer = p;
                        runs.add(pool.submit(() -> {
                            runProducer(bootstrap, transactionVersion, producer, outcomes);
                            return null;
                        }));
                    }
                    for (Future<?> f : runs) {
                        f.get(120, TimeUnit.SECONDS);
                    }
                } finally {
                    pool.shutdownNow();
                }
                Map<String, Integer> visible = new HashMap<>();
                Map<String, Integer> seen = new HashMap<>();
                for (String value : TxnClients.allValues(TxnClients.readValues(
                        "127.0.0.1:" + broker.port(), TOPIC, PARTITIONS, TxnClients.READ_COMMITTED))) {
                    seen.merge(value, 1, Integer::sum);
                    visible.merge(value.substring(0, value.lastIndexOf('-')), 1, Integer::sum);
                }
                List<String> duplicates = seen.entrySet().stream()
                        .filter(e -> e.getValue() > 1)
                        .map(Map.Entry::getKey)
                        .sorted()
                        .toList();
                return new History(outcomes, visible, duplicates, proxy.lateEndTxnAnswers(), proxy.summary());
            }
        }
    }

    private static void setTransactionVersion(Admin admin, short level) throws Exception {
        var finalized = admin.describeFeatures()
                .featureMetadata()
                .get(30, TimeUnit.SECONDS)
                .finalizedFeatures();
        short current = finalized.containsKey("transaction.version")
                ? finalized.get("transaction.version").maxVersionLevel()
                : 0;
        if (current != level) {
            admin.updateFeatures(
                            Map.of(
                                    "transaction.version",
                                    new FeatureUpdate(
                                            level,
                                            level < current
                                                    ? FeatureUpdate.UpgradeType.SAFE_DOWNGRADE
                                                    : FeatureUpdate.UpgradeType.UPGRADE)),
                            new UpdateFeaturesOptions())
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            var f = admin.describeFeatures()
                    .featureMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .finalizedFeatures();
            return f.containsKey("transaction.version")
                    && f.get("transaction.version").maxVersionLevel() == level;
        });
    }

    /** One producer's transactions: even ones commit, odd ones abort; the client's view of each is recorded. */
    private static void runProducer(String bootstrap, short version, int producer, Map<String, Outcome> outcomes) {
        String transactionalId = "anomaly-tv" + version + "-" + producer;
        KafkaProducer<byte[], byte[]> client = newProducer(bootstrap, transactionalId);
        try {
            for (int t = 0; t < TRANSACTIONS; t++) {
                String txn = "p" + producer + "-t" + t;
                boolean commit = commits(txn);
                try {
                    client.beginTransaction();
                    // the first record alone, so that the proxy's late EndTxn lands between it and the others
                    client.send(record(producer + t, txn + "-0"));
                    client.flush();
                    for (int r = 1; r < RECORDS; r++) {
                        client.send(record(producer + t + r, txn + "-" + r));
                    }
                    if (commit) {
                        client.commitTransaction();
                        outcomes.put(txn, Outcome.COMMITTED);
                    } else {
                        client.abortTransaction();
                        outcomes.put(txn, Outcome.ABORTED);
                    }
                } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
                    outcomes.put(txn, Outcome.UNKNOWN);
                    client.close(Duration.ZERO);
                    client = newProducer(bootstrap, transactionalId);
                } catch (KafkaException e) {
                    Outcome outcome = Outcome.UNKNOWN;
                    try {
                        client.abortTransaction();
                        outcome = commit ? Outcome.UNKNOWN : Outcome.ABORTED;
                    } catch (KafkaException fatal) {
                        client.close(Duration.ZERO);
                        client = newProducer(bootstrap, transactionalId);
                    }
                    outcomes.put(txn, outcome);
                }
            }
        } finally {
            client.close(Duration.ofSeconds(10));
        }
    }

    private static ProducerRecord<byte[], byte[]> record(int partition, String value) {
        return new ProducerRecord<>(TOPIC, partition % PARTITIONS, null, value.getBytes(UTF_8));
    }

    private static KafkaProducer<byte[], byte[]> newProducer(String bootstrap, String transactionalId) {
        KafkaProducer<byte[], byte[]> producer = TxnClients.transactionalProducer(
                bootstrap,
                transactionalId,
                Map.of(
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000",
                        ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20",
                        ProducerConfig.LINGER_MS_CONFIG, "0"));
        producer.initTransactions();
        return producer;
    }
}
