package io.varve.it.group;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import io.varve.it.ToolRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group configs (resource type GROUP): set, described and deleted with Kafka 4.4's {@code kafka-configs} and Admin,
 * checked against the broker-wide bounds, and used by the coordinator: a consumer group's own session timeout fences a
 * silent member long before the broker-wide one, its own heartbeat interval is what members are told, and a share
 * group set to {@code share.auto.offset.reset=earliest} reads what was written before it first fetched.
 */
class GroupConfigsIT {
    /** The broker-wide consumer session timeout here: a member fenced much sooner was fenced by its group's own. */
    private static final int BROKER_SESSION_MS = 45_000;

    private static final int BROKER_HEARTBEAT_MS = 5_000;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(overrides());

    @TempDir
    static Path dir;

    private static String topic;

    private static Map<String, String> overrides() {
        Map<String, String> o = new HashMap<>();
        o.put("offsets.topic.num.partitions", "4");
        o.put("share.coordinator.state.topic.num.partitions", "4");
        o.put("group.initial.rebalance.delay.ms", "0");
        o.put("group.consumer.min.session.timeout.ms", "1000");
        o.put("group.consumer.session.timeout.ms", Integer.toString(BROKER_SESSION_MS));
        o.put("group.consumer.min.heartbeat.interval.ms", "100");
        o.put("group.consumer.heartbeat.interval.ms", Integer.toString(BROKER_HEARTBEAT_MS));
        o.put("group.share.min.record.lock.duration.ms", "1000");
        o.put("group.share.min.session.timeout.ms", "2000");
        o.put("group.share.session.timeout.ms", "6000");
        o.put("group.share.min.heartbeat.interval.ms", "200");
        o.put("group.share.heartbeat.interval.ms", "500");
        return o;
    }

    @BeforeAll
    static void createTopicAndCoordinator() throws Exception {
        topic = uniqueTopic("group-configs");
        createTopic(shared.admin(), topic, 1);
        try (RawClient c = client()) {
            c.send(new FindCoordinatorRequestData().setKey("any").setKeyType((byte) 0), (short) 3);
        }
    }

    private static RawClient client() throws IOException {
        return new RawClient(shared.broker().port());
    }

    private static ToolRun configs(String... args) throws IOException, InterruptedException {
        List<String> all =
                new ArrayList<>(List.of("--bootstrap-server", shared.broker().bootstrap()));
        all.addAll(List.of(args));
        return ToolRun.run(dir, Duration.ofSeconds(60), "org.apache.kafka.tools.ConfigCommand", all)
                .withoutLogLines();
    }

    private static Config describe(String group) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        return shared.admin()
                .describeConfigs(List.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource);
    }

    private static void alter(String group, Map<String, String> set) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        set.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        shared.admin()
                .incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void kafkaConfigsSetsDescribesAndDeletesAGroupsOwnSettings() throws Exception {
        ToolRun set = configs(
                "--entity-type",
                "groups",
                "--entity-name",
                "g-tool",
                "--alter",
                "--add-config",
                "consumer.session.timeout.ms=3000,consumer.heartbeat.interval.ms=500");
        assertThat(set.exitCode()).as(set.output()).isZero();

        ToolRun described = configs("--entity-type", "groups", "--entity-name", "g-tool", "--describe");
        assertThat(described.exitCode()).as(described.output()).isZero();
        assertThat(described.output())
                .contains("consumer.session.timeout.ms=3000")
                .contains("consumer.heartbeat.interval.ms=500");

        Config config = describe("g-tool");
        ConfigEntry session = config.get("consumer.session.timeout.ms");
        assertThat(session.value()).isEqualTo("3000");
        assertThat(session.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
        // a key the group does not set shows the broker-wide value it falls back to, and where that comes from
        ConfigEntry lock = config.get("share.record.lock.duration.ms");
        assertThat(lock.value()).isEqualTo("30000");
        assertThat(lock.source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(config.get("share.auto.offset.reset").value()).isEqualTo("latest");

        ToolRun listed = configs("--entity-type", "groups", "--describe");
        assertThat(listed.exitCode()).as(listed.output()).isZero();
        assertThat(listed.output()).contains("g-tool");

        ToolRun deleted = configs(
                "--entity-type",
                "groups",
                "--entity-name",
                "g-tool",
                "--alter",
                "--delete-config",
                "consumer.session.timeout.ms");
        assertThat(deleted.exitCode()).as(deleted.output()).isZero();
        ConfigEntry after = describe("g-tool").get("consumer.session.timeout.ms");
        assertThat(after.value()).isEqualTo(Integer.toString(BROKER_SESSION_MS));
        assertThat(after.source()).isEqualTo(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
    }

    /** The cause of the failure of {@code alter}: the broker's error as Admin raises it. */
    private static Throwable alterFailure(String group, Map<String, String> set) {
        ExecutionException e = (ExecutionException) catchThrowable(() -> alter(group, set));
        assertThat(e).as("alter of %s must fail", set).isNotNull();
        return e.getCause();
    }

    @Test
    void valuesOutsideTheBrokersBoundsOrUnknownKeysAreRefusedWithInvalidConfig() throws Exception {
        assertThat(alterFailure("g-bad", Map.of("consumer.session.timeout.ms", "500")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("consumer.session.timeout.ms must be in the range 1000 to 60000 inclusive.");
        assertThat(alterFailure("g-bad", Map.of("consumer.session.timeout.ms", "4000")))
                .as("the broker-wide heartbeat interval (5 s) applies to the key not set")
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(
                        "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
        assertThat(alterFailure("g-bad", Map.of("no.such.key", "1")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("Unknown group config name: no.such.key");
        assertThat(alterFailure("g-bad", Map.of("share.auto.offset.reset", "sometimes")))
                .isInstanceOf(InvalidConfigurationException.class);
        ToolRun tool = configs(
                "--entity-type",
                "groups",
                "--entity-name",
                "g-bad",
                "--alter",
                "--add-config",
                "share.record.lock.duration.ms=999999");
        assertThat(tool.exitCode()).isNotZero();
        assertThat(tool.output()).contains("share.record.lock.duration.ms must be in the range 1000 to 60000");
        assertThat(describe("g-bad").get("consumer.session.timeout.ms").source())
                .as("nothing was stored")
                .isNotEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
    }

    @Test
    void aSilentConsumerIsFencedAfterItsGroupsSessionTimeoutNotTheBrokers() throws Exception {
        String group = "g-fence";
        alter(group, Map.of("consumer.session.timeout.ms", "2000", "consumer.heartbeat.interval.ms", "300"));
        try (RawClient c = client()) {
            ConsumerGroupHeartbeatResponseData joined = join(c, group);
            assertThat(joined.heartbeatIntervalMs())
                    .as("the group's own heartbeat interval")
                    .isEqualTo(300);
            ConsumerGroupHeartbeatResponseData other = join(c, "g-broker-wide");
            assertThat(other.heartbeatIntervalMs())
                    .as("a group without configs gets the broker-wide interval")
                    .isEqualTo(BROKER_HEARTBEAT_MS);
        }
        long silentFromNanos = System.nanoTime();
        // the member sends nothing more: the coordinator fences it after the group's 2 s, not the broker's 45 s
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> members(group) == 0);
        long fencedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentFromNanos);
        assertThat(fencedAfterMs).isLessThan(15_000L);
        assertThat(members("g-broker-wide"))
                .as("the member of a group without configs is still within the broker's 45 s")
                .isEqualTo(1);
    }

    /** Members of a consumer group as Admin describes it; 0 once the group is gone. */
    private static int members(String group) throws Exception {
        try {
            return shared.admin()
                    .describeConsumerGroups(List.of(group))
                    .all()
                    .get(10, TimeUnit.SECONDS)
                    .get(group)
                    .members()
                    .size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
                return 0;
            }
            throw e;
        }
    }

    private static ConsumerGroupHeartbeatResponseData join(RawClient c, String group) throws Exception {
        ConsumerGroupHeartbeatRequestData request = new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(Uuid.randomUuid().toString())
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(5000)
                .setSubscribedTopicNames(List.of(topic))
                .setTopicPartitions(new ArrayList<>());
        java.util.concurrent.atomic.AtomicReference<ConsumerGroupHeartbeatResponseData> answer =
                new java.util.concurrent.atomic.AtomicReference<>();
        // the offsets topic may still be loading: retry as a client does
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    ConsumerGroupHeartbeatResponseData r = c.send(request, (short) 1);
                    Errors error = Errors.forCode(r.errorCode());
                    if (error != Errors.NONE
                            && error != Errors.COORDINATOR_LOAD_IN_PROGRESS
                            && error != Errors.COORDINATOR_NOT_AVAILABLE
                            && error != Errors.NOT_COORDINATOR) {
                        throw new AssertionError("join of " + group + " answered " + error + ": " + r.errorMessage());
                    }
                    answer.set(r);
                    return error == Errors.NONE;
                });
        return answer.get();
    }

    @Test
    void aShareGroupSetToEarliestReadsRecordsWrittenBeforeItFirstFetched() throws Exception {
        String shareTopic = uniqueTopic("share-earliest");
        createTopic(shared.admin(), shareTopic, 1);
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(shareTopic, ("early-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        ToolRun set = configs(
                "--entity-type",
                "groups",
                "--entity-name",
                "sg-earliest",
                "--alter",
                "--add-config",
                "share.auto.offset.reset=earliest");
        assertThat(set.exitCode()).as(set.output()).isZero();
        List<String> got = new ArrayList<>();
        try (KafkaShareConsumer<String, String> consumer = shareConsumer("sg-earliest")) {
            consumer.subscribe(List.of(shareTopic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (got.size() < 5 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    got.add(r.value());
                }
            }
        }
        assertThat(got).containsExactly("early-0", "early-1", "early-2", "early-3", "early-4");
    }

    private static KafkaShareConsumer<String, String> shareConsumer(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, shared.broker().bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaShareConsumer<>(p);
    }
}
