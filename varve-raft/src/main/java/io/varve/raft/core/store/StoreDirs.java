package io.varve.raft.core.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Creates a store's directory, durably (its parent fsynced) when it is new. */
final class StoreDirs {
    private StoreDirs() {}

    static void create(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                Path parent = dir.toAbsolutePath().getParent();
                if (parent != null) {
                    DurableIo.fsyncDirectory(parent);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + dir, e);
        }
    }
}
