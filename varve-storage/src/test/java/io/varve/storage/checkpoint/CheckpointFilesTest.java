package io.varve.storage.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFilesTest {

    @TempDir
    Path dir;

    @Test
    void partitionMetadataHoldsVersionAndTopicId() throws Exception {
        Uuid topicId = Uuid.randomUuid();
        PartitionMetadataFile file = new PartitionMetadataFile(dir);
        assertThat(file.read()).isEmpty();
        file.write(topicId);

        assertThat(Files.readString(dir.resolve("partition.metadata"))).isEqualTo("version: 0\ntopic_id: " + topicId);
        assertThat(file.read()).contains(topicId);
        assertThat(dir.resolve("partition.metadata.tmp")).doesNotExist();
    }

    @Test
    void malformedPartitionMetadataFailsLoudly() throws Exception {
        Files.writeString(dir.resolve("partition.metadata"), "version: 7\ntopic_id: x");
        assertThatThrownBy(() -> new PartitionMetadataFile(dir).read()).isInstanceOf(KafkaStorageException.class);
    }

    @Test
    void leaderEpochCheckpointRoundTrips() {
        LeaderEpochCheckpointFile file = new LeaderEpochCheckpointFile(dir);
        assertThat(file.read()).isEmpty();
        file.write(List.of(new EpochEntry(1, 0), new EpochEntry(4, 99)));
        assertThat(file.read()).containsExactly(new EpochEntry(1, 0), new EpochEntry(4, 99));
    }

    @Test
    void offsetCheckpointUsesKafkasTextFormatAndRoundTrips() throws Exception {
        OffsetCheckpointFile file = new OffsetCheckpointFile(dir, OffsetCheckpointFile.RECOVERY_POINT_FILE);
        assertThat(file.read()).isEmpty();
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        offsets.put(new TopicPartition("orders", 0), 42L);
        offsets.put(new TopicPartition("my-topic.x", 11), 0L);
        file.write(offsets);

        assertThat(Files.readString(dir.resolve("recovery-point-offset-checkpoint")))
                .isEqualTo("0\n2\norders 0 42\nmy-topic.x 11 0\n");
        assertThat(file.read()).isEqualTo(offsets);
        assertThat(dir.resolve("recovery-point-offset-checkpoint.tmp")).doesNotExist();
    }

    @Test
    void offsetCheckpointWithABadLineFailsLoudly() throws Exception {
        Files.writeString(dir.resolve(OffsetCheckpointFile.LOG_START_OFFSET_FILE), "0\n1\norders 0\n");
        assertThatThrownBy(() -> new OffsetCheckpointFile(dir, OffsetCheckpointFile.LOG_START_OFFSET_FILE).read())
                .isInstanceOf(KafkaStorageException.class)
                .hasMessageContaining("line 3");
    }

    @Test
    void leaderEpochCheckpointWithMissingLinesFailsLoudly() throws Exception {
        Files.writeString(dir.resolve(LeaderEpochCheckpointFile.FILE_NAME), "0\n3\n1 0\n");
        assertThatThrownBy(() -> new LeaderEpochCheckpointFile(dir).read()).isInstanceOf(KafkaStorageException.class);
    }
}
