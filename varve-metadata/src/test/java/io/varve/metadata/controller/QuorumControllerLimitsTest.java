package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.TestMetadataNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A request is written as one atomic batch: one too large for it is refused whole, as Kafka 4.x refuses it. */
class QuorumControllerLimitsTest {
    @TempDir
    Path dir;

    @Test
    void aCreateTopicsOfMoreThanTenThousandPartitionsIsAPolicyViolationAndWritesNothing() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            long imageOffset = node.loader.image().offset();
            List<CreateTopicRequest> twoHalves = List.of(
                    new CreateTopicRequest("a", 5_000, (short) 1, Map.of(), Map.of()),
                    new CreateTopicRequest("b", 5_001, (short) 1, Map.of(), Map.of()));

            assertThatThrownBy(
                            () -> node.controller.createTopics(twoHalves, false).join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(PolicyViolationException.class)
                    .hasRootCauseMessage("Excessively large number of partitions per request.");

            assertThat(node.loader.image().offset()).isEqualTo(imageOffset);
            assertThat(node.loader.image().topics().getTopic("a")).isNull();
            List<CreateTopicResult> atTheLimit = node.controller
                    .createTopics(List.of(new CreateTopicRequest("c", 10_000, (short) 1, Map.of(), Map.of())), false)
                    .join();
            assertThat(atTheLimit.get(0).error()).isEqualTo(Errors.NONE);
        }
    }

    @Test
    void aCreatePartitionsAddingMoreThanTenThousandPartitionsIsAPolicyViolation() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            node.controller
                    .createTopics(List.of(new CreateTopicRequest("grow", 1, (short) 1, Map.of(), Map.of())), false)
                    .join();

            assertThatThrownBy(() -> node.controller
                            .createPartitions(List.of(CreatePartitionsRequest.increaseTo("grow", 10_002)), false)
                            .join())
                    .hasCauseInstanceOf(PolicyViolationException.class);

            assertThat(node.loader.image().topics().getTopic("grow").numPartitions())
                    .isEqualTo(1);
        }
    }

    @Test
    void aRequestWhoseRecordsExceedOneBatchIsAPolicyViolationNotAFailedAppend() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            // 4,000 topics of one partition and three configs each: 20,000 records, under the partition limit.
            List<CreateTopicRequest> many = IntStream.range(0, 4_000)
                    .mapToObj(i -> new CreateTopicRequest(
                            "t" + i,
                            1,
                            (short) 1,
                            Map.of(),
                            Map.of("retention.ms", "1000", "segment.ms", "1000", "cleanup.policy", "delete")))
                    .toList();

            assertThatThrownBy(() -> node.controller.createTopics(many, false).join())
                    .hasCauseInstanceOf(PolicyViolationException.class)
                    .hasRootCauseMessage("Excessively large number of records per request: 20000 (at most 16384).");

            assertThat(node.loader.image().topics().getTopic("t0")).isNull();
            assertThat(node.controller
                            .createTopics(List.of(CreateTopicRequest.withDefaults("after")), false)
                            .join()
                            .get(0)
                            .error())
                    .isEqualTo(Errors.NONE);
        }
    }
}
