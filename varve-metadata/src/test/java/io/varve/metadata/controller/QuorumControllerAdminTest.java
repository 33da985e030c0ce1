package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.TestMetadataNode;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigResourceType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Config changes and partition additions through Raft: visible when the future completes, durable across restarts. */
class QuorumControllerAdminTest {

    private static final ConfigResource CLUSTER = new ConfigResource(ConfigResourceType.BROKER, "");

    @TempDir
    Path dir;

    private static void createTopic(TestMetadataNode node, String name, int partitions) {
        assertThat(node.controller
                        .createTopics(
                                List.of(new CreateTopicRequest(name, partitions, (short) 1, Map.of(), Map.of())), false)
                        .join()
                        .get(0)
                        .error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void alteredConfigsAreInTheLoadersImageWhenTheFutureCompletes() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            createTopic(node, "orders", 1);
            List<MetadataImage> seen = new ArrayList<>();

            List<AlterConfigResult> results = node.controller
                    .incrementalAlterConfigs(
                            Map.of(
                                    ConfigResource.topic("orders"),
                                    List.of(ConfigChange.set("max.message.bytes", "5000"))),
                            false)
                    .whenComplete((r, e) -> seen.add(node.loader.image()))
                    .join();

            assertThat(results)
                    .containsExactly(new AlterConfigResult(ConfigResource.topic("orders"), Errors.NONE, null));
            assertThat(seen.get(0).configs().topicConfigs("orders")).containsEntry("max.message.bytes", "5000");
        }
    }

    @Test
    void validateOnlyReportsTheOutcomeButWritesNothing() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            createTopic(node, "orders", 1);
            long imageOffset =
                    node.loader.image().offset(); // not the Raft high watermark: it may trail the last commit

            List<AlterConfigResult> valid = node.controller
                    .alterConfigs(Map.of(ConfigResource.topic("orders"), Map.of("retention.ms", "1000")), true)
                    .join();
            List<AlterConfigResult> invalid = node.controller
                    .incrementalAlterConfigs(
                            Map.of(ConfigResource.topic("orders"), List.of(ConfigChange.set("retention.ms", "-5"))),
                            true)
                    .join();
            List<CreatePartitionsResult> partitions = node.controller
                    .createPartitions(List.of(CreatePartitionsRequest.increaseTo("orders", 4)), true)
                    .join();

            assertThat(valid.get(0).error()).isEqualTo(Errors.NONE);
            assertThat(invalid.get(0).error()).isEqualTo(Errors.INVALID_CONFIG);
            assertThat(partitions.get(0).error()).isEqualTo(Errors.NONE);
            assertThat(node.loader.image().offset()).isEqualTo(imageOffset);
            assertThat(node.loader.image().configs().topicConfigs("orders")).isEmpty();
            assertThat(node.loader.image().topics().getTopic("orders").numPartitions())
                    .isEqualTo(1);
        }
    }

    @Test
    void addedPartitionsAreInTheImageWhenTheFutureCompletes() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            createTopic(node, "orders", 2);

            List<CreatePartitionsResult> results = node.controller
                    .createPartitions(List.of(CreatePartitionsRequest.increaseTo("orders", 5)), false)
                    .join();

            assertThat(results).containsExactly(new CreatePartitionsResult("orders", Errors.NONE, null));
            assertThat(node.loader.image().topics().getTopic("orders").numPartitions())
                    .isEqualTo(5);
        }
    }

    @Test
    void brokerAndTopicConfigsAndAddedPartitionsSurviveARestart() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            createTopic(node, "orders", 1);
            node.controller
                    .incrementalAlterConfigs(
                            Map.of(
                                    ConfigResource.topic("orders"),
                                    List.of(ConfigChange.set("segment.ms", "60000")),
                                    CLUSTER,
                                    List.of(ConfigChange.set("log.retention.ms", "120000"))),
                            false)
                    .join();
            node.controller
                    .createPartitions(List.of(CreatePartitionsRequest.increaseTo("orders", 3)), false)
                    .join();
        }

        try (TestMetadataNode node = TestMetadataNode.start(dir)) {
            MetadataImage image = node.loader.image();
            assertThat(image.configs().topicConfigs("orders")).containsExactly(Map.entry("segment.ms", "60000"));
            assertThat(image.configs().configs(CLUSTER)).containsExactly(Map.entry("log.retention.ms", "120000"));
            assertThat(image.topics().getTopic("orders").numPartitions()).isEqualTo(3);
        }
    }

    @Test
    void staticOnlyBrokerKeysGivenToTheControllerAreRefused() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            QuorumController strict = new QuorumController(
                    ControllerConfig.defaults(),
                    TestMetadataNode.CLUSTER_ID,
                    node.raft,
                    node.loader,
                    "log.dirs"::equals,
                    System::currentTimeMillis);
            try {
                List<AlterConfigResult> results = strict.incrementalAlterConfigs(
                                Map.of(CLUSTER, List.of(ConfigChange.set("log.dirs", "/elsewhere"))), false)
                        .join();

                assertThat(results.get(0).error()).isEqualTo(Errors.INVALID_REQUEST);
                assertThat(results.get(0).message())
                        .isEqualTo("Cannot update these configs dynamically: Set(log.dirs)");
            } finally {
                strict.close();
            }
        }
    }
}
