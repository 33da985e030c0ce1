package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.TestMetadataNode;
import io.varve.metadata.controller.cluster.BrokerRegistrationReply;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuorumControllerTest {

    @TempDir
    Path dir;

    private static CreateTopicRequest topic(String name, int partitions, Map<String, String> configs) {
        return new CreateTopicRequest(name, partitions, (short) -1, Map.of(), configs);
    }

    @Test
    void createdTopicIsInTheLoadersImageWhenTheFutureCompletes() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            List<MetadataImage> seen = new ArrayList<>();
            List<CreateTopicResult> results = node.controller
                    .createTopics(List.of(topic("orders", 3, Map.of("retention.ms", "1000"))), false)
                    .whenComplete((r, e) -> seen.add(node.loader.image()))
                    .join();

            CreateTopicResult result = results.get(0);
            assertThat(result.error()).isEqualTo(Errors.NONE);
            TopicImage topic = seen.get(0).topics().getTopic("orders");
            assertThat(topic.id()).isEqualTo(result.topicId());
            assertThat(topic.numPartitions()).isEqualTo(3);
            assertThat(topic.partition(0).replicas()).containsExactly(TestMetadataNode.NODE_ID);
            assertThat(seen.get(0).configs().topicConfigs("orders")).containsEntry("retention.ms", "1000");
        }
    }

    @Test
    void validateOnlyWritesNothing() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            // the loaded image, not the Raft high watermark: that one may still move to the end of the last commit
            long imageOffset = node.loader.image().offset();

            CreateTopicResult result = node.controller
                    .createTopics(List.of(CreateTopicRequest.withDefaults("t")), true)
                    .join()
                    .get(0);

            assertThat(result.error()).isEqualTo(Errors.NONE);
            assertThat(node.loader.image().offset()).isEqualTo(imageOffset);
            assertThat(node.loader.image().topics().getTopic("t")).isNull();
        }
    }

    @Test
    void concurrentCreatesOfOneNameLetExactlyOneSucceed() throws Exception {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            int attempts = 8;
            ExecutorService pool = Executors.newFixedThreadPool(4);
            CountDownLatch go = new CountDownLatch(1);
            try {
                List<CompletableFuture<CompletableFuture<List<CreateTopicResult>>>> submitted = IntStream.range(
                                0, attempts)
                        .mapToObj(i -> CompletableFuture.supplyAsync(
                                () -> {
                                    awaitQuietly(go);
                                    return node.controller.createTopics(
                                            List.of(CreateTopicRequest.withDefaults("race")), false);
                                },
                                pool))
                        .toList();
                go.countDown();
                List<Errors> errors = submitted.stream()
                        .map(f -> f.join().join().get(0).error())
                        .toList();

                assertThat(errors).containsOnlyOnce(Errors.NONE);
                assertThat(errors)
                        .filteredOn(e -> e == Errors.TOPIC_ALREADY_EXISTS)
                        .hasSize(attempts - 1);
                assertThat(node.loader.image().topics().topicsByName()).containsOnlyKeys("race");
            } finally {
                pool.shutdown();
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void deletedTopicIsGoneWithItsConfigsAndItsNameCanBeReused() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            Uuid firstId = node.controller
                    .createTopics(List.of(topic("t", 1, Map.of("retention.ms", "5"))), false)
                    .join()
                    .get(0)
                    .topicId();

            List<DeleteTopicResult> deleted =
                    node.controller.deleteTopics(List.of("t"), List.of()).join();

            assertThat(deleted).containsExactly(new DeleteTopicResult("t", firstId, Errors.NONE, null));
            assertThat(node.loader.image().topics().getTopic("t")).isNull();
            assertThat(node.loader.image().configs().topicConfigs("t")).isEmpty();
            CreateTopicResult again = node.controller
                    .createTopics(List.of(CreateTopicRequest.withDefaults("t")), false)
                    .join()
                    .get(0);
            assertThat(again.error()).isEqualTo(Errors.NONE);
            assertThat(again.topicId()).isNotEqualTo(firstId);
        }
    }

    @Test
    void concurrentProducerIdAllocationsNeverOverlap() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            List<CompletableFuture<Long>> futures = IntStream.range(0, 50)
                    .mapToObj(i -> node.controller.allocateProducerIds(1, 1000))
                    .toList();
            Set<Long> starts = new HashSet<>();
            futures.forEach(f -> starts.add(f.join()));

            assertThat(starts).hasSize(50);
            assertThat(starts).allSatisfy(start -> assertThat(start % 1000).isZero());
            assertThat(node.loader.image().producerIds().nextProducerId()).isEqualTo(50_000);
        }
    }

    @Test
    void invalidProducerIdRequestsFailWithInvalidRequest() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            assertThatThrownBy(() -> node.controller.allocateProducerIds(1, 0).join())
                    .hasCauseInstanceOf(InvalidRequestException.class);
        }
    }

    @Test
    void brokerRegistrationIsPublishedAndAnIdenticalOneWritesNothing() {
        try (TestMetadataNode node = TestMetadataNode.start(dir)) {
            BrokerRegistrationRequest registration = TestMetadataNode.registration(1);
            long epoch = node.controller.registerBroker(registration).join().brokerEpoch();
            long imageOffset = node.loader.image().offset(); // not the Raft high watermark: it may trail the commit

            BrokerRegistrationReply retry =
                    node.controller.registerBroker(registration).join();

            assertThat(retry.brokerEpoch()).isEqualTo(epoch);
            assertThat(node.loader.image().offset()).isEqualTo(imageOffset);
            assertThat(node.loader.image().cluster().broker(1).incarnationId()).isEqualTo(registration.incarnationId());
            assertThat(node.controller
                            .registerBroker(new BrokerRegistrationRequest(
                                    2, TestMetadataNode.CLUSTER_ID, Uuid.randomUuid(), List.of(), null, Map.of()))
                            .join()
                            .error())
                    .isEqualTo(Errors.INVALID_REGISTRATION);
        }
    }

    @Test
    void aSingleNodeRegistersIsUnfencedByItsFirstHeartbeatAndPlacesReplicationFactorOne() {
        try (TestMetadataNode node = TestMetadataNode.start(dir)) {
            long epoch = node.registerAndUnfence(TestMetadataNode.registration(1));

            assertThat(node.loader.image().cluster().activeBrokerIds()).containsExactly(1);
            assertThat(node.loader.image().cluster().broker(1).epoch()).isEqualTo(epoch);
            CreateTopicResult created = node.controller
                    .createTopics(List.of(CreateTopicRequest.withDefaults("t")), false)
                    .join()
                    .get(0);
            assertThat(created.error()).isEqualTo(Errors.NONE);
            assertThat(created.replicationFactor()).isEqualTo((short) 1);
        }
    }

    @Test
    void aRestartedSingleNodeRegistersANewIncarnationAtOnceAndLeadsItsPartitionsAgain() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            node.controller
                    .createTopics(List.of(CreateTopicRequest.withDefaults("t")), false)
                    .join();
        }
        try (TestMetadataNode node = TestMetadataNode.start(dir)) {
            int leaderEpochBefore =
                    node.loader.image().topics().getTopic("t").partition(0).leaderEpoch();

            node.registerAndUnfence(TestMetadataNode.registration(1));

            PartitionImage partition =
                    node.loader.image().topics().getTopic("t").partition(0);
            assertThat(partition.leader()).isEqualTo(1);
            assertThat(partition.isr()).containsExactly(1);
            assertThat(partition.leaderEpoch()).isGreaterThan(leaderEpochBefore);
        }
    }

    @Test
    void requestsFailWithNotControllerOnceRaftIsClosed() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            node.raft.close();

            assertThatThrownBy(() -> node.controller.allocateProducerIds(1, 10).join())
                    .hasCauseInstanceOf(NotControllerException.class);
            // nothing of the failed request reached the committed image
            assertThat(node.loader.image().producerIds().nextProducerId()).isZero();
        }
    }

    @Test
    void restartRestoresTopicsIdsConfigsBrokersAndProducerIds() {
        Uuid topicId;
        long firstBlock;
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            topicId = node.controller
                    .createTopics(
                            List.of(
                                    topic("orders", 2, Map.of("cleanup.policy", "compact")),
                                    CreateTopicRequest.withDefaults("gone")),
                            false)
                    .join()
                    .get(0)
                    .topicId();
            node.controller.deleteTopics(List.of("gone"), List.of()).join();
            firstBlock = node.controller.allocateProducerIds(1, 1000).join();
        }

        try (TestMetadataNode node = TestMetadataNode.start(dir)) {
            MetadataImage image = node.loader.image();
            assertThat(image.topics().topicsByName()).containsOnlyKeys("orders");
            assertThat(image.topics().getTopic("orders").id()).isEqualTo(topicId);
            assertThat(image.topics().getTopic("orders").numPartitions()).isEqualTo(2);
            assertThat(image.configs().topicConfigs("orders")).containsExactly(Map.entry("cleanup.policy", "compact"));
            assertThat(image.cluster().brokerIds()).containsExactly(TestMetadataNode.NODE_ID);
            assertThat(node.raft.epoch()).isEqualTo(2);

            long secondBlock = node.controller.allocateProducerIds(1, 1000).join();
            assertThat(secondBlock).isGreaterThanOrEqualTo(firstBlock + 1000);
            assertThat(node.controller
                            .createTopics(List.of(CreateTopicRequest.withDefaults("orders")), false)
                            .join()
                            .get(0)
                            .error())
                    .isEqualTo(Errors.TOPIC_ALREADY_EXISTS);
        }
    }

    @Test
    void closedControllerRefusesRequests() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            node.controller.close();

            assertThatThrownBy(() -> node.controller.allocateProducerIds(1, 10).join())
                    .hasCauseInstanceOf(NotControllerException.class);
        }
    }
}
