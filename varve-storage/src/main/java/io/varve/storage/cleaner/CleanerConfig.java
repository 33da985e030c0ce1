package io.varve.storage.cleaner;

/**
 * Broker-level settings of the log cleaner, with Kafka's key names and defaults.
 *
 * @param enabled            {@code log.cleaner.enable} (true): without it compacted logs are never cleaned
 * @param threads            {@code log.cleaner.threads} (1): logs cleaned at the same time
 * @param backoffMs          {@code log.cleaner.backoff.ms} (15000): a cleaner thread's sleep when no log needs
 *                           cleaning
 * @param dedupeBufferBytes  {@code log.cleaner.dedupe.buffer.size} (128 MiB): memory for the key to offset maps
 *                           of all threads together; a pass whose dirty keys do not fit cleans a prefix
 */
public record CleanerConfig(boolean enabled, int threads, long backoffMs, long dedupeBufferBytes) {

    public static final long DEFAULT_BACKOFF_MS = 15_000L;
    public static final long DEFAULT_DEDUPE_BUFFER_BYTES = 128L * 1024 * 1024;

    public CleanerConfig {
        if (threads < 0 || backoffMs < 0 || dedupeBufferBytes < 1) {
            throw new IllegalArgumentException("Invalid cleaner config: threads " + threads + " and backoffMs "
                    + backoffMs + " must be at least 0, dedupeBufferBytes " + dedupeBufferBytes + " at least 1");
        }
    }

    public static CleanerConfig defaults() {
        return new CleanerConfig(true, 1, DEFAULT_BACKOFF_MS, DEFAULT_DEDUPE_BUFFER_BYTES);
    }

    /** True when background cleaner threads should run. */
    public boolean runsInBackground() {
        return enabled && threads > 0;
    }

    /** The map memory of one thread. */
    public long dedupeBufferBytesPerThread() {
        return dedupeBufferBytes / Math.max(1, threads);
    }
}
