package io.varve.it.admin;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Altered topic and broker configs, added partitions and a moved log start offset are all still in force after a restart. */
class AdminRestartIT {

    @TempDir
    Path dataDir;

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    @Test
    void configsPartitionsAndTheLogStartOffsetSurviveARestart() throws Exception {
        String topic = uniqueTopic("restarted");
        ConfigResource topicResource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        ConfigResource clusterDefault = new ConfigResource(ConfigResource.Type.BROKER, "");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (TestBroker broker = TestBroker.start(dataDir)) {
            try (Admin admin = broker.admin()) {
                createTopic(admin, topic, 1);
                Map<ConfigResource, Collection<AlterConfigOp>> changes = Map.of(
                        topicResource, List.of(set("max.message.bytes", "3000")),
                        clusterDefault, List.of(set("log.retention.ms", "7200000")));
                admin.incrementalAlterConfigs(changes).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2)))
                        .all()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
                    for (int i = 0; i < 5; i++) {
                        producer.send(new ProducerRecord<>(topic, 0, null, new byte[100]));
                    }
                    producer.flush();
                }
                admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(2)))
                        .all()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }

            broker.restart();

            try (Admin admin = broker.admin()) {
                Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(topicResource, clusterDefault))
                        .all()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertThat(configs.get(topicResource).get("max.message.bytes").value())
                        .isEqualTo("3000");
                assertThat(configs.get(topicResource).get("retention.ms"))
                        .extracting(ConfigEntry::value, ConfigEntry::source)
                        .containsExactly("7200000", ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
                assertThat(configs.get(clusterDefault).get("log.retention.ms").value())
                        .isEqualTo("7200000");
                assertThat(admin.describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                                .get(topic)
                                .partitions())
                        .hasSize(2);
                assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                                .partitionResult(tp)
                                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                                .offset())
                        .isEqualTo(2);
            }
            try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
                assertThat(producer.send(new ProducerRecord<>(topic, 1, null, new byte[10_000])))
                        .failsWithin(TIMEOUT)
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(RecordTooLargeException.class);
            }
        }
    }
}
