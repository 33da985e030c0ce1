package io.varve.storage.fs;

import java.io.IOException;

/**
 * Tells apart the I/O failures that say something about the disk from those that say the process ran out of a
 * resource (descriptors, map areas): the first take a log dir offline, the second are retried and never treated as
 * damage. Java reports errno only as the message text, so that is what is matched.
 */
public final class IoErrors {

    private IoErrors() {}

    /** True when {@code failure} (or a cause) is running out of descriptors or memory-map areas, not a disk fault. */
    public static boolean isResourceExhaustion(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof FileHandlesExhaustedException) {
                return true;
            }
            String message = t.getMessage();
            if (message != null && (t instanceof IOException || t instanceof OutOfMemoryError)) {
                // EMFILE, ENFILE ("... in system"); FileChannel.map's ENOMEM when vm.max_map_count is reached
                if (message.contains("Too many open files") || message.contains("Map failed")) {
                    return true;
                }
            }
        }
        return false;
    }
}
