package io.varve.raft.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.core.runtime.ElectionRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileQuorumStateStoreTest {
    @TempDir
    Path dir;

    @Test
    void aNewDirectoryHasNoRecord() {
        assertThat(new FileQuorumStateStore(dir.resolve("new")).read()).isEmpty();
    }

    @Test
    void theLastWrittenRecordSurvivesAReopen() {
        FileQuorumStateStore store = new FileQuorumStateStore(dir);
        store.write(new ElectionRecord(3, 2, -1));
        store.write(new ElectionRecord(4, 1, 1));
        assertThat(new FileQuorumStateStore(dir).read()).contains(new ElectionRecord(4, 1, 1));
        assertThat(Files.exists(dir.resolve(FileQuorumStateStore.FILE_NAME + DurableIo.TEMP_SUFFIX)))
                .isFalse();
    }

    @Test
    void aTempFileAnInterruptedWriteLeftIsIgnoredAndRemoved() throws IOException {
        new FileQuorumStateStore(dir).write(new ElectionRecord(7, 0, 0));
        Path temp = dir.resolve(FileQuorumStateStore.FILE_NAME + DurableIo.TEMP_SUFFIX);
        Files.writeString(temp, "version=1\nepoch=9\nvot");
        assertThat(new FileQuorumStateStore(dir).read()).contains(new ElectionRecord(7, 0, 0));
        assertThat(Files.exists(temp)).isFalse();
    }

    @Test
    void aDamagedFileRefusesToOpenRatherThanForgetAVote() throws IOException {
        Files.writeString(dir.resolve(FileQuorumStateStore.FILE_NAME), "version=1\nepoch=9\nvotedId=x\n");
        assertThatThrownBy(() -> new FileQuorumStateStore(dir)).isInstanceOf(IllegalStateException.class);
        Files.writeString(dir.resolve(FileQuorumStateStore.FILE_NAME), "version=2\nepoch=9\nvotedId=1\nleaderId=1\n");
        assertThatThrownBy(() -> new FileQuorumStateStore(dir)).hasMessageContaining("unsupported version");
        Files.writeString(dir.resolve(FileQuorumStateStore.FILE_NAME), "version=1\nepoch=9\nleaderId=1\n");
        assertThatThrownBy(() -> new FileQuorumStateStore(dir)).hasMessageContaining("votedId is missing");
    }
}
