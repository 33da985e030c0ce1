package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Topic administration as Admin clients see it: create, delete by name and id, validateOnly, Kafka's errors, auto-creation. */
class TopicAdminIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    @Test
    void aCreatedTopicIsListedDescribedAndGoneAfterDeletionByName() throws Exception {
        String topic = uniqueTopic("by-name");
        Uuid id = createTopic(shared.admin(), topic, 3);
        assertThat(id).isNotNull().isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(topicNames()).contains(topic);
        TopicDescription description = shared.admin()
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(topic);
        assertThat(description.topicId()).isEqualTo(id);
        assertThat(description.partitions()).hasSize(3).allSatisfy(p -> {
            assertThat(p.leader().id()).isEqualTo(1);
            assertThat(p.replicas()).hasSize(1);
            assertThat(p.isr()).hasSize(1);
        });

        shared.admin().deleteTopics(List.of(topic)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(topicNames()).doesNotContain(topic);
        assertFails(
                shared.admin().describeTopics(List.of(topic)).allTopicNames(), UnknownTopicOrPartitionException.class);
    }

    @Test
    void aTopicIsDescribedByIdAndOnceDeletedByIdIsGoneWithItsIdUnknown() throws Exception {
        String topic = uniqueTopic("by-id");
        Uuid id = createTopic(shared.admin(), topic, 1);
        TopicDescription byId = shared.admin()
                .describeTopics(TopicCollection.ofTopicIds(List.of(id)))
                .allTopicIds()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(id);
        assertThat(byId.name()).isEqualTo(topic);

        shared.admin()
                .deleteTopics(TopicCollection.ofTopicIds(List.of(id)))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(topicNames()).doesNotContain(topic);
        assertFails(
                shared.admin()
                        .describeTopics(TopicCollection.ofTopicIds(List.of(id)))
                        .allTopicIds(),
                UnknownTopicIdException.class);
        assertFails(
                shared.admin()
                        .deleteTopics(TopicCollection.ofTopicIds(List.of(id)))
                        .all(),
                UnknownTopicIdException.class);
    }

    @Test
    void deletingAMissingTopicByNameFailsWithUnknownTopicOrPartition() {
        assertFails(
                shared.admin()
                        .deleteTopics(List.of(uniqueTopic("never-created")))
                        .all(),
                UnknownTopicOrPartitionException.class);
    }

    @Test
    void validateOnlyChecksTheRequestButCreatesNothing() throws Exception {
        String topic = uniqueTopic("validate-only");
        shared.admin()
                .createTopics(List.of(new NewTopic(topic, 2, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(topicNames()).doesNotContain(topic);

        assertFails(
                shared.admin()
                        .createTopics(
                                List.of(new NewTopic(topic, 0, (short) 1)),
                                new CreateTopicsOptions().validateOnly(true))
                        .all(),
                InvalidPartitionsException.class);
        // The name is still free.
        createTopic(shared.admin(), topic, 2);
        assertThat(topicNames()).contains(topic);
    }

    @Test
    void creatingAnExistingTopicFailsWithTopicExists() throws Exception {
        String topic = uniqueTopic("exists");
        createTopic(shared.admin(), topic, 1);
        assertFails(
                shared.admin()
                        .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all(),
                TopicExistsException.class);
        assertFails(
                shared.admin()
                        .createTopics(
                                List.of(new NewTopic(topic, 1, (short) 1)),
                                new CreateTopicsOptions().validateOnly(true))
                        .all(),
                TopicExistsException.class);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"bad name!", ".", "..", "slash/in/name", "LONG"})
    void invalidTopicNamesFailWithInvalidTopic(String name) {
        String topic = name.equals("LONG") ? "a".repeat(250) : name;
        assertFails(
                shared.admin()
                        .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all(),
                InvalidTopicException.class);
    }

    @Test
    void aNameThatCollidesWithAnExistingTopicOnDotAndUnderscoreFailsWithInvalidTopic() throws Exception {
        String suffix = uniqueTopic("");
        createTopic(shared.admin(), "collide.x" + suffix, 1);
        assertFails(
                shared.admin()
                        .createTopics(List.of(new NewTopic("collide_x" + suffix, 1, (short) 1)))
                        .all(),
                InvalidTopicException.class);
        assertThat(topicNames()).doesNotContain("collide_x" + suffix);
    }

    @Test
    void zeroPartitionsFailsWithInvalidPartitions() {
        assertFails(
                shared.admin()
                        .createTopics(List.of(new NewTopic(uniqueTopic("zero-partitions"), 0, (short) 1)))
                        .all(),
                InvalidPartitionsException.class);
    }

    @ParameterizedTest(name = "replication factor {0}")
    @ValueSource(shorts = {3, 0})
    void aReplicationFactorThisClusterCannotMeetFailsWithInvalidReplicationFactor(short replicationFactor) {
        String topic = uniqueTopic("rf" + replicationFactor);
        assertFails(
                shared.admin()
                        .createTopics(List.of(new NewTopic(topic, 1, replicationFactor)))
                        .all(),
                InvalidReplicationFactorException.class);
    }

    @Test
    void anUnknownTopicConfigFailsWithInvalidConfiguration() {
        NewTopic topic = new NewTopic(uniqueTopic("bad-config"), 1, (short) 1).configs(Map.of("no.such.config", "1"));
        assertFails(shared.admin().createTopics(List.of(topic)).all(), InvalidConfigurationException.class);
    }

    @Test
    void anInvalidTopicConfigValueFailsWithInvalidConfiguration() {
        NewTopic topic = new NewTopic(uniqueTopic("bad-value"), 1, (short) 1)
                .configs(Map.of("max.message.bytes", "not-a-number"));
        assertFails(shared.admin().createTopics(List.of(topic)).all(), InvalidConfigurationException.class);
    }

    @Test
    void producingToAMissingTopicCreatesItWhenAutoCreationIsOn() throws Exception {
        String topic = uniqueTopic("auto-created");
        try (KafkaProducer<byte[], byte[]> producer =
                shared.broker().producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000"))) {
            RecordMetadata metadata = producer.send(new ProducerRecord<>(topic, "hello".getBytes(UTF_8)))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(metadata.offset()).isZero();
        }
        assertThat(topicNames()).contains(topic);
        // num.partitions defaults to 1.
        assertThat(readAll(shared.broker(), topic, 1)).singleElement().satisfies(r -> assertThat(r.value())
                .isEqualTo("hello".getBytes(UTF_8)));
    }

    @Test
    void withAutoCreationOffAMissingTopicIsNeitherCreatedByProducersNorByConsumers(@TempDir Path dir) throws Exception {
        String topic = uniqueTopic("not-auto-created");
        try (TestBroker noAutoCreate = TestBroker.start(dir, Map.of("auto.create.topics.enable", "false"));
                Admin noAutoAdmin = noAutoCreate.admin()) {
            try (KafkaProducer<byte[], byte[]> producer =
                    noAutoCreate.producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, "1500"))) {
                Throwable failure = catchThrowable(() -> producer.send(new ProducerRecord<>(topic, "x".getBytes(UTF_8)))
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
                Throwable cause = failure instanceof ExecutionException ? failure.getCause() : failure;
                assertThat(cause).isInstanceOf(TimeoutException.class);
            }
            try (KafkaConsumer<byte[], byte[]> consumer =
                    noAutoCreate.consumer(Map.of(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000"))) {
                assertThat(Optional.ofNullable(consumer.partitionsFor(topic)).orElse(List.of()))
                        .isEmpty();
            }
            assertThat(noAutoAdmin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .doesNotContain(topic);
        }
    }

    private Set<String> topicNames() throws Exception {
        return shared.admin().listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private static void assertFails(KafkaFuture<?> future, Class<? extends Throwable> expected) {
        assertThat(future)
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(expected);
    }
}
