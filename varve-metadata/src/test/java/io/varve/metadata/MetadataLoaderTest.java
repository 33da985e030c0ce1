package io.varve.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.MetadataRecordSerde;
import io.varve.metadata.record.ProducerIdsRecord;
import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataLoaderTest {

    @TempDir
    Path dir;

    /** Remembers each update and the loader's image at that moment. */
    private static final class RecordingPublisher implements MetadataPublisher {
        final List<MetadataImage> images = Collections.synchronizedList(new ArrayList<>());
        final List<MetadataDelta> deltas = Collections.synchronizedList(new ArrayList<>());
        final List<String> calls;
        final String name;

        RecordingPublisher(String name, List<String> calls) {
            this.name = name;
            this.calls = calls;
        }

        @Override
        public void onMetadataUpdate(MetadataDelta delta, MetadataImage newImage) {
            calls.add(name + "@" + newImage.offset());
            deltas.add(delta);
            images.add(newImage);
        }
    }

    @Test
    void publishersAreCalledInOrderAndTheImageIsPublishedAfterThem() {
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        RecordingPublisher first = new RecordingPublisher("first", calls);
        RecordingPublisher second = new RecordingPublisher("second", calls);
        try (TestMetadataNode node = TestMetadataNode.start(dir, first, second)) {
            node.controller.allocateProducerIds(1, 1000).join();

            // offset 0 holds the leader's LEADER_CHANGE entry, which never reaches the loader
            assertThat(calls).containsExactly("first@1", "second@1");
            assertThat(node.loader.image()).isSameAs(second.images.get(0));
            assertThat(first.deltas.get(0).producerIdsDelta().nextProducerId()).isEqualTo(1000);
            assertThat(node.loader.leaderId()).isEqualTo(TestMetadataNode.NODE_ID);
            assertThat(node.loader.leaderEpoch()).isEqualTo(1);
        }
    }

    @Test
    void aPublisherInstalledLateFirstReceivesTheWholeCurrentImage() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            node.controller
                    .createTopics(List.of(CreateTopicRequest.withDefaults("orders")), false)
                    .join();
            RecordingPublisher late = new RecordingPublisher("late", new ArrayList<>());

            node.loader.installPublisher(late);

            assertThat(late.images).containsExactly(node.loader.image());
            assertThat(late.deltas.get(0).topicsDelta().createdTopicIds())
                    .containsExactly(
                            node.loader.image().topics().getTopic("orders").id());
        }
    }

    @Test
    void aFailingPublisherDoesNotStopTheOthersNorTheImage() {
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        RecordingPublisher after = new RecordingPublisher("after", calls);
        MetadataPublisher failing = (delta, image) -> {
            throw new IllegalStateException("disk full");
        };
        try (TestMetadataNode node = TestMetadataNode.start(dir, failing, after)) {
            node.controller.allocateProducerIds(1, 10).join();

            assertThat(calls).containsExactly("after@1");
            assertThat(node.loader.image().producerIds().nextProducerId()).isEqualTo(10);
        }
    }

    @Test
    void anUndecodableRecordIsFatalToTheRaftNode() {
        try (TestMetadataNode node = TestMetadataNode.start(dir)) {
            assertThatThrownBy(
                            () -> node.raft.append(List.of(new byte[] {99, 0})).join())
                    .hasRootCauseMessage("unknown metadata record type id 99");
            assertThatThrownBy(() -> node.raft
                            .append(List.of(MetadataRecordSerde.serialize(new ProducerIdsRecord(1, 5))))
                            .join())
                    .hasCauseInstanceOf(RaftClosedException.class);
            assertThat(node.loader.image().isEmpty()).isTrue();
        }
    }

    @Test
    void oneCommitCallBecomesOneImageAtTheLastOffset() {
        MetadataLoader loader = new MetadataLoader();
        loader.handleCommit(List.of(
                new RaftRecord(0, 1, MetadataRecordSerde.serialize(new ProducerIdsRecord(1, 10))),
                new RaftRecord(1, 1, MetadataRecordSerde.serialize(new ProducerIdsRecord(1, 20)))));

        assertThat(loader.image().offset()).isEqualTo(1);
        assertThat(loader.image().producerIds().nextProducerId()).isEqualTo(20);
    }
}
