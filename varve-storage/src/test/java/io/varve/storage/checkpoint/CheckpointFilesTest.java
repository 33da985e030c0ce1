package io.varve.storage.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
  void leaderEpochCheckpointWithMissingLinesFailsLoudly() throws Exception {
    Files.writeString(dir.resolve(LeaderEpochCheckpointFile.FILE_NAME), "0\n3\n1 0\n");
    assertThatThrownBy(() -> new LeaderEpochCheckpointFile(dir).read()).isInstanceOf(KafkaStorageException.class);
  }
}
