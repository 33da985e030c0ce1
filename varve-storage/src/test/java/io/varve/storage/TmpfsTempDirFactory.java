package io.varve.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Temp dirs on tmpfs ({@code /dev/shm}) when the machine has one: real files with the same semantics,
 * but fsync costs nothing, so tests that roll and restart logs thousands of times stay fast. Falls back
 * to the default temp dir elsewhere.
 */
public final class TmpfsTempDirFactory implements TempDirFactory {

    private static final Path TMPFS = Path.of("/dev/shm");

    @Override
    public Path createTempDirectory(AnnotatedElementContext elementContext, ExtensionContext extensionContext)
            throws IOException {
        if (Files.isDirectory(TMPFS) && Files.isWritable(TMPFS)) {
            return Files.createTempDirectory(TMPFS, "varve-storage-test-");
        }
        return Files.createTempDirectory("varve-storage-test-");
    }
}
