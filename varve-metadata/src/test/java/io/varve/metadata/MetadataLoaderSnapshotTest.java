package io.varve.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.MetadataRecordSerde;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.TopicRecord;
import io.varve.metadata.snapshot.CorruptSnapshotException;
import io.varve.metadata.snapshot.MetadataSnapshotFormat;
import io.varve.raft.RaftRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class MetadataLoaderSnapshotTest {
    private static final Uuid A = new Uuid(1, 1);
    private static final Uuid B = new Uuid(2, 2);
    private static final Uuid C = new Uuid(3, 3);

    private static final class Recording implements MetadataPublisher {
        final List<MetadataDelta> deltas = new ArrayList<>();
        final List<MetadataImage> images = new ArrayList<>();

        @Override
        public void onMetadataUpdate(MetadataDelta delta, MetadataImage newImage) {
            deltas.add(delta);
            images.add(newImage);
        }
    }

    private static List<RaftRecord> batch(long firstOffset, MetadataRecord... records) {
        List<RaftRecord> batch = new ArrayList<>();
        for (int i = 0; i < records.length; i++) {
            batch.add(new RaftRecord(firstOffset + i, 1, MetadataRecordSerde.serialize(records[i])));
        }
        return batch;
    }

    private static PartitionRecord partition(Uuid topic) {
        return new PartitionRecord(topic, 0, new int[] {1}, new int[] {1}, 1, 0, 0);
    }

    /** The leader's image at offset 9: topic a deleted, b kept, c created while the follower was away. */
    private static MetadataImage leaderImage() {
        MetadataLoader leader = new MetadataLoader();
        leader.handleCommit(batch(0, new TopicRecord("a", A), partition(A), new TopicRecord("b", B), partition(B)));
        leader.handleCommit(batch(4, new RemoveTopicRecord(A)));
        leader.handleCommit(batch(5, new TopicRecord("c", C), partition(C)));
        leader.handleCommit(batch(7, new TopicRecord("d", new Uuid(4, 4)), partition(new Uuid(4, 4))));
        leader.handleCommit(batch(9, new RemoveTopicRecord(new Uuid(4, 4))));
        return leader.image();
    }

    @Test
    void aSnapshotReachesPublishersAsTheWholeImageWithWhatItLacksDeleted() {
        MetadataLoader follower = new MetadataLoader();
        Recording publisher = new Recording();
        follower.installPublisher(publisher);
        follower.handleCommit(batch(0, new TopicRecord("a", A), partition(A), new TopicRecord("b", B), partition(B)));
        MetadataImage leader = leaderImage();

        follower.handleSnapshot(leader.offset() + 1, MetadataSnapshotFormat.write(leader));

        assertThat(follower.image()).isEqualTo(leader);
        assertThat(follower.snapshotsLoaded()).isEqualTo(1);
        MetadataDelta delta = publisher.deltas.get(publisher.deltas.size() - 1);
        assertThat(delta.topicsDelta().deletedTopics()).containsOnlyKeys(A);
        assertThat(delta.topicsDelta().createdTopicIds()).containsExactly(C);
        assertThat(publisher.images.get(publisher.images.size() - 1)).isSameAs(follower.image());
    }

    @Test
    void aSnapshotAtStartBuildsTheImageFromNothingAndTheTailContinuesIt() {
        MetadataLoader restarted = new MetadataLoader();
        Recording publisher = new Recording();
        restarted.installPublisher(publisher);
        MetadataImage leader = leaderImage();

        restarted.handleSnapshot(leader.offset() + 1, MetadataSnapshotFormat.write(leader));
        restarted.handleCommit(batch(leader.offset() + 2, new RemoveTopicRecord(B)));

        assertThat(publisher.deltas.get(0).topicsDelta().createdTopicIds()).containsExactlyInAnyOrder(B, C);
        assertThat(restarted.image().topics().topicsByName()).containsOnlyKeys("c");
        assertThat(restarted.image().offset()).isEqualTo(leader.offset() + 2);
    }

    @Test
    void aSnapshotWithABadChecksumIsNeverApplied() {
        MetadataLoader follower = new MetadataLoader();
        follower.handleCommit(batch(0, new TopicRecord("a", A), partition(A)));
        MetadataImage before = follower.image();
        MetadataImage leader = leaderImage();
        byte[] bytes = MetadataSnapshotFormat.write(leader);
        bytes[bytes.length / 2] ^= 0x10;

        assertThatThrownBy(() -> follower.handleSnapshot(leader.offset() + 1, bytes))
                .isInstanceOf(CorruptSnapshotException.class);
        assertThat(follower.image()).isSameAs(before);
        assertThat(follower.snapshotsLoaded()).isZero();
    }
}
