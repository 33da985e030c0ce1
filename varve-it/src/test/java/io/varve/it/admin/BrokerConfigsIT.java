package io.varve.it.admin;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Broker configs as kafka-configs.sh sees them: this broker's static and default values, the dynamic
 * cluster-wide default (broker "") and per-broker settings, how they reach topic descriptions, and
 * Kafka's refusals. Each test undoes its dynamic settings.
 */
class BrokerConfigsIT {

    @RegisterExtension
    static final SharedBroker shared =
            new SharedBroker(Map.of("log.retention.hours", "48", "message.max.bytes", "1500000"));

    private static final ConfigResource THIS_BROKER = new ConfigResource(ConfigResource.Type.BROKER, "1");
    private static final ConfigResource CLUSTER_DEFAULT = new ConfigResource(ConfigResource.Type.BROKER, "");

    private static Config describe(ConfigResource resource) throws Exception {
        return shared.admin()
                .describeConfigs(List.of(resource), new DescribeConfigsOptions().includeSynonyms(true))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(resource);
    }

    private static KafkaFuture<Void> alter(ConfigResource resource, boolean validateOnly, AlterConfigOp... ops) {
        Map<ConfigResource, Collection<AlterConfigOp>> change = Map.of(resource, List.of(ops));
        return shared.admin()
                .incrementalAlterConfigs(change, new AlterConfigsOptions().validateOnly(validateOnly))
                .all();
    }

    private static void alter(ConfigResource resource, AlterConfigOp... ops) throws Exception {
        alter(resource, false, ops).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    private static AlterConfigOp delete(String name) {
        return new AlterConfigOp(new ConfigEntry(name, null), AlterConfigOp.OpType.DELETE);
    }

    @Test
    void aDynamicClusterDefaultReachesLiveLogsWithoutOverridesAndATopicOverrideWins() throws Exception {
        String plain = uniqueTopic("dyn-default");
        String overridden = uniqueTopic("dyn-override");
        createTopic(shared.admin(), plain, 1);
        createTopic(shared.admin(), overridden, 1, Map.of("max.message.bytes", "1000000"));
        byte[] value = new byte[20_000];
        try (KafkaProducer<byte[], byte[]> producer =
                shared.broker().producer(Map.of(ProducerConfig.RETRIES_CONFIG, "0"))) {
            assertThat(producer.send(new ProducerRecord<>(plain, value))
                            .get(30, TimeUnit.SECONDS)
                            .hasOffset())
                    .isTrue();
            alter(CLUSTER_DEFAULT, set("message.max.bytes", "10000"));
            try {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(plain, value))
                                .get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(RecordTooLargeException.class);
                assertThat(producer.send(new ProducerRecord<>(overridden, value))
                                .get(30, TimeUnit.SECONDS)
                                .hasOffset())
                        .isTrue();
            } finally {
                alter(CLUSTER_DEFAULT, delete("message.max.bytes"));
            }
            assertThat(producer.send(new ProducerRecord<>(plain, value))
                            .get(30, TimeUnit.SECONDS)
                            .hasOffset())
                    .isTrue();
        }
    }

    @Test
    void thisBrokerShowsStaticAndDefaultValuesWithReadOnlyFlagsAndSynonyms() throws Exception {
        Config config = describe(THIS_BROKER);

        ConfigEntry hours = config.get("log.retention.hours");
        assertThat(hours.value()).isEqualTo("48");
        assertThat(hours.source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        assertThat(hours.isReadOnly()).isTrue();
        ConfigEntry maxBytes = config.get("message.max.bytes");
        assertThat(maxBytes.value()).isEqualTo("1500000");
        assertThat(maxBytes.source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        assertThat(maxBytes.isReadOnly()).isFalse();
        assertThat(config.get("num.partitions").source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(config.get("log.dirs").isReadOnly()).isTrue();
        ConfigEntry retentionMs = config.get("log.retention.ms");
        assertThat(retentionMs.value()).isNull();
        assertThat(retentionMs.synonyms())
                .extracting(ConfigEntry.ConfigSynonym::name, ConfigEntry.ConfigSynonym::source)
                .containsExactly(
                        tuple("log.retention.hours", ConfigSource.STATIC_BROKER_CONFIG),
                        tuple("log.retention.hours", ConfigSource.DEFAULT_CONFIG));
    }

    @Test
    void clusterDefaultsAndPerBrokerSettingsReachBrokerAndTopicDescriptions() throws Exception {
        String topic = uniqueTopic("broker-defaults");
        createTopic(shared.admin(), topic, 1);
        ConfigResource topicResource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        assertThat(describe(topicResource).get("retention.ms"))
                .extracting(ConfigEntry::value, ConfigEntry::source)
                .containsExactly("172800000", ConfigSource.STATIC_BROKER_CONFIG);

        alter(CLUSTER_DEFAULT, set("log.retention.ms", "7200000"));
        try {
            assertThat(describe(CLUSTER_DEFAULT).entries())
                    .extracting(ConfigEntry::name, ConfigEntry::value, ConfigEntry::source)
                    .containsExactly(tuple("log.retention.ms", "7200000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG));
            assertThat(describe(THIS_BROKER).get("log.retention.ms").source())
                    .isEqualTo(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
            assertThat(describe(topicResource).get("retention.ms"))
                    .extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("7200000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);

            alter(THIS_BROKER, set("log.retention.ms", "3600000"));
            assertThat(describe(topicResource).get("retention.ms"))
                    .extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("3600000", ConfigSource.DYNAMIC_BROKER_CONFIG);
        } finally {
            alter(THIS_BROKER, delete("log.retention.ms"));
            alter(CLUSTER_DEFAULT, delete("log.retention.ms"));
        }
        assertThat(describe(CLUSTER_DEFAULT).entries()).isEmpty();
        assertThat(describe(topicResource).get("retention.ms").value()).isEqualTo("172800000");
    }

    @Test
    void readOnlyKeysInvalidValuesAndOtherBrokersAreRefusedWithInvalidRequest() {
        assertThat(alter(CLUSTER_DEFAULT, false, set("log.dirs", "/elsewhere")))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidRequestException.class)
                .withMessageContaining("Cannot update these configs dynamically: Set(log.dirs)");
        assertThat(alter(THIS_BROKER, false, set("log.retention.hours", "1")))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidRequestException.class);
        assertThat(alter(CLUSTER_DEFAULT, false, set("log.segment.bytes", "tiny")))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidRequestException.class);
    }

    @Test
    void aRequestNamingAnotherBrokerIsInvalidRequest() throws Exception {
        // Admin would route it to broker 2 itself; sent here, this broker refuses it as Kafka's does.
        DescribeConfigsRequestData describe = new DescribeConfigsRequestData();
        describe.resources()
                .add(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.BROKER.id())
                        .setResourceName("2"));
        try (RawClient client = new RawClient(shared.broker().port())) {
            DescribeConfigsResponseData response = client.send(describe, (short) 4);
            assertThat(response.results().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            assertThat(response.results().get(0).errorMessage())
                    .isEqualTo("Unexpected broker id, expected 1 or empty string, but received 2");
        }
        AlterConfigsResponseData alter = LegacyAlterConfigs.send(
                shared.broker(),
                (short) 2,
                false,
                LegacyAlterConfigs.resource(ConfigResource.Type.BROKER, "2", Map.of("log.cleaner.threads", "2")));
        assertThat(alter.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    }

    @Test
    void validateOnlyOnABrokerChangesNothing() throws Exception {
        alter(CLUSTER_DEFAULT, true, set("log.cleaner.threads", "3")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(describe(CLUSTER_DEFAULT).entries()).isEmpty();
    }

    @Test
    void legacyAlterConfigsReplacesTheClusterDefaultSet() throws Exception {
        alter(CLUSTER_DEFAULT, set("log.cleaner.backoff.ms", "20000"));

        AlterConfigsResponseData replaced = LegacyAlterConfigs.send(
                shared.broker(),
                (short) 0,
                false,
                LegacyAlterConfigs.resource(ConfigResource.Type.BROKER, "", Map.of("log.cleaner.threads", "2")));
        assertThat(replaced.responses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(describe(CLUSTER_DEFAULT).entries())
                .extracting(ConfigEntry::name)
                .containsExactly("log.cleaner.threads");

        AlterConfigsResponseData refused = LegacyAlterConfigs.send(
                shared.broker(),
                (short) 1,
                false,
                LegacyAlterConfigs.resource(ConfigResource.Type.BROKER, "1", Map.of("log.dirs", "/elsewhere")));
        assertThat(refused.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());

        LegacyAlterConfigs.send(
                shared.broker(),
                (short) 2,
                false,
                LegacyAlterConfigs.resource(ConfigResource.Type.BROKER, "", Map.of()));
        assertThat(describe(CLUSTER_DEFAULT).entries()).isEmpty();
    }
}
