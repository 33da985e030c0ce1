package io.varve.it.txn;

import static io.varve.it.txn.TxnClients.READ_COMMITTED;
import static io.varve.it.txn.TxnClients.READ_UNCOMMITTED;
import static io.varve.it.txn.TxnClients.allValues;
import static io.varve.it.txn.TxnClients.readValues;
import static io.varve.it.txn.TxnClients.transactionalProducer;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker process killed with SIGKILL in the middle of transactions restarts with every transaction either
 * completed or aborted, never half visible to read_committed: a transaction whose commit was acknowledged has its
 * markers written after the restart (the coordinator resumes PREPARE_COMMIT), an open one is aborted when its
 * producer comes back.
 */
class TransactionCrashIT {
    private static final String TOPIC = "crash-txn";
    private static final int PARTITIONS = 3;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path workDir;

    private static ProducerRecord<byte[], byte[]> record(int partition, String value) {
        return new ProducerRecord<>(TOPIC, partition, null, value.getBytes(UTF_8));
    }

    @Test
    void aCommittedTransactionCompletesAndAnOpenOneIsAbortedAfterTheBrokerIsKilled() throws Exception {
        int port = ServerProcess.freePort();
        String[] args = {
            "--override",
            "listeners=PLAINTEXT://127.0.0.1:" + port,
            "--override",
            "log.dirs=" + workDir.resolve("data"),
            "--override",
            "transaction.state.log.num.partitions=2"
        };
        String bootstrap;
        try (ServerProcess server =
                ServerProcess.start(workDir, "before", port, args).awaitReady()) {
            bootstrap = server.bootstrap();
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (Admin admin = Admin.create(p)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                        .all()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            KafkaProducer<byte[], byte[]> open = transactionalProducer(bootstrap, "open", Map.of());
            KafkaProducer<byte[], byte[]> committing = transactionalProducer(bootstrap, "committing", Map.of());
            open.initTransactions();
            open.beginTransaction();
            for (int partition = 0; partition < PARTITIONS; partition++) {
                open.send(record(partition, "open-" + partition));
            }
            open.flush();
            committing.initTransactions();
            committing.beginTransaction();
            for (int partition = 0; partition < PARTITIONS; partition++) {
                committing.send(record(partition, "committed-" + partition));
            }
            committing.commitTransaction();
            // The commit is acknowledged once PREPARE_COMMIT is durable; its markers may or may not be written yet.
            server.kill();
            open.close(Duration.ZERO);
            committing.close(Duration.ZERO);
        }

        try (ServerProcess server =
                        ServerProcess.start(workDir, "after", port, args).awaitReady();
                KafkaProducer<byte[], byte[]> openAgain = transactionalProducer(bootstrap, "open", Map.of())) {
            assertThat(allValues(readValues(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED)))
                    .as("nothing of the open transaction is visible")
                    .noneMatch(v -> v.startsWith("open"));
            // The returning producer fences its old instance: the open transaction is aborted.
            openAgain.initTransactions();
            await().atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> allValues(readValues(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED))
                                    .size()
                            == PARTITIONS);
            assertThat(readValues(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED))
                    .isEqualTo(Map.of(0, List.of("committed-0"), 1, List.of("committed-1"), 2, List.of("committed-2")));
            assertThat(allValues(readValues(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED)))
                    .as("the aborted records are still in the log")
                    .contains("open-0", "open-1", "open-2");
        }
    }
}
