package io.varve.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.tiered.fs.FileSystemRemoteStorage;
import io.varve.tiered.spi.RemoteStorage;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemoteStorageFactoryTest {
    @TempDir
    Path dir;

    @Test
    void filesystemIsTheDefaultAndGetsItsKeysWithThePrefixStripped() {
        try (RemoteStorage storage =
                RemoteStorageFactory.create(Map.of("rsm.config.fs.root.dir", dir.toString(), "log.dirs", "/ignored"))) {
            assertThat(storage).isInstanceOfSatisfying(FileSystemRemoteStorage.class, fs -> assertThat(fs.root())
                    .isEqualTo(dir.toAbsolutePath().normalize()));
        }
    }

    @Test
    void aCustomPrefixSelectsTheBackendKeys() {
        try (RemoteStorage storage = RemoteStorageFactory.create(
                Map.of(RemoteStorageFactory.IMPL_PREFIX_CONFIG, "tiering.", "tiering.fs.root.dir", dir.toString()))) {
            assertThat(storage).isInstanceOf(FileSystemRemoteStorage.class);
        }
    }

    @Test
    void missingRootDirOrUnknownBackendIsOneClearSentence() {
        assertThatThrownBy(() -> RemoteStorageFactory.create(Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rsm.config.fs.root.dir");
        assertThatThrownBy(() ->
                        RemoteStorageFactory.create(Map.of(RemoteStorageFactory.CLASS_NAME_CONFIG, "com.example.Nope")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("neither 'filesystem', 's3'");
        assertThatThrownBy(() ->
                        RemoteStorageFactory.create(Map.of(RemoteStorageFactory.CLASS_NAME_CONFIG, "java.lang.String")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a");
    }
}
