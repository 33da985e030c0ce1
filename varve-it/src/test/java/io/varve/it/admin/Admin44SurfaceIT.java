package io.varve.it.admin;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.SharedBroker;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Admin calls Kafka 4.4's CLI tools make beyond the basics, answered as Kafka 4.4 answers them:
 * DescribeTopicPartitions paged by a partition limit (kafka-topics --describe), ListConfigResources
 * (kafka-client-metrics --list, kafka-configs without a name), ListTransactions with the duration and
 * transactional-id-pattern filters and DescribeProducers (kafka-transactions list, describe-producers), and
 * BROKER_LOGGER configs (kafka-configs --entity-type broker-loggers).
 */
class Admin44SurfaceIT {
    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    @Test
    void describeTopicsPagedTwoPartitionsAtATimeReturnsEveryPartitionWithItsEligibleReplicaFields() throws Exception {
        String topic = uniqueTopic("paged");
        createTopic(shared.admin(), topic, 5);
        TopicDescription d = shared.admin()
                .describeTopics(List.of(topic), new DescribeTopicsOptions().partitionSizeLimitPerResponse(2))
                .allTopicNames()
                .get()
                .get(topic);
        assertThat(d.partitions()).extracting(p -> p.partition()).containsExactly(0, 1, 2, 3, 4);
        assertThat(d.partitions()).allSatisfy(p -> {
            assertThat(p.leader()).isNotNull();
            assertThat(p.elr()).isEmpty();
            assertThat(p.lastKnownElr()).isEmpty();
        });
    }

    @Test
    void listConfigResourcesNamesTheClientMetricsResources() throws Exception {
        ConfigResource metrics = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "survey-metrics");
        shared.admin()
                .incrementalAlterConfigs(Map.of(
                        metrics,
                        List.of(new AlterConfigOp(
                                new ConfigEntry("metrics", "org.apache.kafka.producer."), AlterConfigOp.OpType.SET))))
                .all()
                .get();
        await("the client metrics resource is listed")
                .atMost(Duration.ofSeconds(10))
                .until(() -> shared.admin()
                        .listConfigResources(
                                Set.of(ConfigResource.Type.CLIENT_METRICS),
                                new org.apache.kafka.clients.admin.ListConfigResourcesOptions())
                        .all()
                        .get()
                        .contains(metrics));
    }

    @Test
    void listTransactionsFiltersByTransactionalIdPatternAndDurationAndDescribeProducersShowsTheOpenOne()
            throws Exception {
        String topic = uniqueTopic("txns");
        createTopic(shared.admin(), topic, 1);
        try (KafkaProducer<byte[], byte[]> alpha = transactional("alpha-" + topic);
                KafkaProducer<byte[], byte[]> beta = transactional("beta-" + topic)) {
            for (KafkaProducer<byte[], byte[]> p : List.of(alpha, beta)) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>(topic, 0, null, new byte[] {1})).get();
            }
            Collection<TransactionListing> byPattern = shared.admin()
                    .listTransactions(new ListTransactionsOptions().filterOnTransactionalIdPattern("alpha-.*"))
                    .all()
                    .get();
            assertThat(byPattern)
                    .extracting(TransactionListing::transactionalId)
                    .contains("alpha-" + topic);
            assertThat(byPattern)
                    .extracting(TransactionListing::transactionalId)
                    .doesNotContain("beta-" + topic);

            Collection<TransactionListing> tooYoung = shared.admin()
                    .listTransactions(new ListTransactionsOptions().filterOnDuration(3_600_000))
                    .all()
                    .get();
            assertThat(tooYoung)
                    .extracting(TransactionListing::transactionalId)
                    .doesNotContain("alpha-" + topic, "beta-" + topic);
            await("both transactions are older than 1 ms")
                    .atMost(Duration.ofSeconds(10))
                    .until(
                            () -> shared
                                    .admin()
                                    .listTransactions(new ListTransactionsOptions().filterOnDuration(1))
                                    .all()
                                    .get()
                                    .stream()
                                    .map(TransactionListing::transactionalId)
                                    .collect(Collectors.toSet())
                                    .containsAll(Set.of("alpha-" + topic, "beta-" + topic)));

            TopicPartition tp = new TopicPartition(topic, 0);
            List<ProducerState> producers = shared.admin()
                    .describeProducers(List.of(tp))
                    .partitionResult(tp)
                    .get()
                    .activeProducers();
            assertThat(producers).hasSize(2);
            assertThat(producers).allSatisfy(p -> assertThat(p.currentTransactionStartOffset())
                    .isPresent());
            alpha.abortTransaction();
            beta.abortTransaction();
        }
    }

    @Test
    void brokerLoggerLevelsAreDescribedSetAndResetOnTheNodeTheyName() throws Exception {
        String nodeId = Integer.toString(
                shared.admin().describeCluster().nodes().get().iterator().next().id());
        ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER_LOGGER, nodeId);
        String logger = "io.varve.broker.Broker";
        assertThat(loggerLevels(node)).containsKey("root").containsKey(logger);
        String inherited = loggerLevels(node).get(logger);

        alterLogger(node, new AlterConfigOp(new ConfigEntry(logger, "TRACE"), AlterConfigOp.OpType.SET));
        assertThat(loggerLevels(node)).containsEntry(logger, "TRACE");
        alterLogger(node, new AlterConfigOp(new ConfigEntry(logger, ""), AlterConfigOp.OpType.DELETE));
        assertThat(loggerLevels(node)).containsEntry(logger, inherited);

        assertThatThrownBy(() ->
                        alterLogger(node, new AlterConfigOp(new ConfigEntry(logger, "LOUD"), AlterConfigOp.OpType.SET)))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("not a supported log level");
        assertThatThrownBy(() ->
                        alterLogger(node, new AlterConfigOp(new ConfigEntry("root", ""), AlterConfigOp.OpType.DELETE)))
                .hasCauseInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> alterLogger(
                        node, new AlterConfigOp(new ConfigEntry(logger, "INFO"), AlterConfigOp.OpType.APPEND)))
                .hasCauseInstanceOf(InvalidRequestException.class);
        assertThat(loggerLevels(node)).containsEntry(logger, inherited);
    }

    private static Map<String, String> loggerLevels(ConfigResource node) throws Exception {
        Map<String, String> out = new java.util.TreeMap<>();
        shared.admin()
                .describeConfigs(List.of(node))
                .all()
                .get()
                .get(node)
                .entries()
                .forEach(e -> out.put(e.name(), e.value()));
        return out;
    }

    private static void alterLogger(ConfigResource node, AlterConfigOp op) throws Exception {
        shared.admin().incrementalAlterConfigs(Map.of(node, List.of(op))).all().get();
    }

    private static KafkaProducer<byte[], byte[]> transactional(String id) {
        return shared.broker()
                .producer(Map.of(
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG, id, ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60000));
    }
}
