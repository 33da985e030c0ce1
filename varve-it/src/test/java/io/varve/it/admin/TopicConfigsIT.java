package io.varve.it.admin;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.varve.it.SharedBroker;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Topic configs through Admin: describe with sources and synonyms, incremental and legacy alters, validateOnly, errors, live effect. */
class TopicConfigsIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    private static ConfigResource topicResource(String topic) {
        return new ConfigResource(ConfigResource.Type.TOPIC, topic);
    }

    private static Config describe(String topic, boolean synonyms) throws Exception {
        ConfigResource resource = topicResource(topic);
        return shared.admin()
                .describeConfigs(
                        List.of(resource),
                        new DescribeConfigsOptions().includeSynonyms(synonyms).includeDocumentation(true))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(resource);
    }

    private static void alter(String topic, AlterConfigOp... ops) throws Exception {
        alter(topic, false, ops).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private static KafkaFuture<Void> alter(String topic, boolean validateOnly, AlterConfigOp... ops) {
        ConfigResource resource = topicResource(topic);
        Map<ConfigResource, Collection<AlterConfigOp>> change = Map.of(resource, List.of(ops));
        return shared.admin()
                .incrementalAlterConfigs(change, new AlterConfigsOptions().validateOnly(validateOnly))
                .all();
    }

    private static AlterConfigOp op(String name, String value, AlterConfigOp.OpType type) {
        return new AlterConfigOp(new ConfigEntry(name, value), type);
    }

    @Test
    void describeListsEveryTopicConfigWithOverridesAsDynamicTopicConfigAndTheRestFromBrokerDefaults() throws Exception {
        String topic = uniqueTopic("described");
        createTopic(shared.admin(), topic, 1, Map.of("retention.ms", "3600000"));

        Config config = describe(topic, true);

        assertThat(config.entries())
                .extracting(ConfigEntry::name)
                .contains(
                        "cleanup.policy",
                        "max.message.bytes",
                        "segment.bytes",
                        "retention.bytes",
                        "min.insync.replicas");
        ConfigEntry retention = config.get("retention.ms");
        assertThat(retention.value()).isEqualTo("3600000");
        assertThat(retention.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(retention.isReadOnly()).isFalse();
        assertThat(retention.isSensitive()).isFalse();
        assertThat(retention.type()).isEqualTo(ConfigEntry.ConfigType.LONG);
        assertThat(retention.documentation()).isNotBlank();
        assertThat(retention.synonyms())
                .extracting(ConfigEntry.ConfigSynonym::name, ConfigEntry.ConfigSynonym::source)
                .startsWith(tuple("retention.ms", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG))
                .contains(tuple("log.retention.hours", ConfigEntry.ConfigSource.DEFAULT_CONFIG));

        ConfigEntry segmentMs = config.get("segment.ms");
        assertThat(segmentMs.value()).isEqualTo("604800000");
        assertThat(segmentMs.source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(config.get("cleanup.policy").value()).isEqualTo("delete");
        assertThat(config.get("cleanup.policy").type()).isEqualTo(ConfigEntry.ConfigType.LIST);
    }

    @Test
    void describeWithoutSynonymsLeavesThemOut() throws Exception {
        String topic = uniqueTopic("no-synonyms");
        createTopic(shared.admin(), topic, 1);

        assertThat(describe(topic, false).entries())
                .allSatisfy(e -> assertThat(e.synonyms()).isEmpty());
    }

    @Test
    void setDeleteAppendAndSubtractChangeTheTopicsConfigs() throws Exception {
        String topic = uniqueTopic("incremental");
        createTopic(shared.admin(), topic, 1, Map.of("retention.ms", "3600000"));

        alter(
                topic,
                op("segment.ms", "120000", AlterConfigOp.OpType.SET),
                op("retention.ms", null, AlterConfigOp.OpType.DELETE),
                op("cleanup.policy", "compact", AlterConfigOp.OpType.APPEND));
        Config afterFirst = describe(topic, false);
        assertThat(afterFirst.get("segment.ms").value()).isEqualTo("120000");
        assertThat(afterFirst.get("retention.ms").value()).isEqualTo("604800000");
        assertThat(afterFirst.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(afterFirst.get("cleanup.policy").value()).isEqualTo("delete,compact");

        alter(topic, op("cleanup.policy", "delete", AlterConfigOp.OpType.SUBTRACT));
        assertThat(describe(topic, false).get("cleanup.policy").value()).isEqualTo("compact");
    }

    @Test
    void aRaisedMaxMessageBytesTakesEffectOnTheLiveTopicWithoutRestart() throws Exception {
        String topic = uniqueTopic("live-max-bytes");
        createTopic(shared.admin(), topic, 1, Map.of("max.message.bytes", "2000"));
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            Future<RecordMetadata> tooLarge = producer.send(new ProducerRecord<>(topic, 0, null, new byte[10_000]));
            assertThat(tooLarge)
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(RecordTooLargeException.class);

            alter(topic, op("max.message.bytes", "100000", AlterConfigOp.OpType.SET));

            assertThat(producer.send(new ProducerRecord<>(topic, 0, null, new byte[10_000]))
                            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                            .offset())
                    .isZero();
        }
    }

    @Test
    void legacyAlterConfigsReplacesTheWholeSetAndReportsErrorsPerResource() throws Exception {
        String topic = uniqueTopic("legacy");
        createTopic(shared.admin(), topic, 1, Map.of("retention.ms", "3600000"));

        AlterConfigsResponseData response = LegacyAlterConfigs.send(
                shared.broker(),
                (short) 2,
                false,
                LegacyAlterConfigs.resource(ConfigResource.Type.TOPIC, topic, Map.of("segment.ms", "90000")),
                LegacyAlterConfigs.resource(
                        ConfigResource.Type.TOPIC, uniqueTopic("missing"), Map.of("segment.ms", "1")));

        assertThat(response.responses())
                .extracting(r -> Errors.forCode(r.errorCode()))
                .containsExactly(Errors.NONE, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        Config config = describe(topic, false);
        assertThat(config.get("segment.ms").value()).isEqualTo("90000");
        assertThat(config.get("segment.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(config.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void validateOnlyChecksButChangesNothing() throws Exception {
        String topic = uniqueTopic("validate-only");
        createTopic(shared.admin(), topic, 1);

        alter(topic, true, op("segment.ms", "120000", AlterConfigOp.OpType.SET))
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(alter(topic, true, op("segment.ms", "-7", AlterConfigOp.OpType.SET)))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidConfigurationException.class);

        assertThat(describe(topic, false).get("segment.ms").source())
                .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void unknownTopicsInvalidValuesAndUnknownKeysFailWithKafkasErrors() throws Exception {
        String topic = uniqueTopic("errors");
        createTopic(shared.admin(), topic, 1);

        assertThat(alter(uniqueTopic("missing"), false, op("segment.ms", "120000", AlterConfigOp.OpType.SET)))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(alter(topic, false, op("segment.ms", "soon", AlterConfigOp.OpType.SET)))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidConfigurationException.class)
                .withMessageContaining("segment.ms");
        assertThat(alter(topic, false, op("no.such.config", "1", AlterConfigOp.OpType.SET)))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidConfigurationException.class)
                .withMessageContaining("Unknown topic config name: no.such.config");
        assertThat(alter(topic, false, op("retention.ms", "5", AlterConfigOp.OpType.APPEND)))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidConfigurationException.class);
        ConfigResource missing = topicResource(uniqueTopic("missing"));
        assertThat(shared.admin().describeConfigs(List.of(missing)).values().get(missing))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }
}
