package io.varve.http.view;

/**
 * Where to move a group's committed offsets, as {@code kafka-consumer-groups --reset-offsets} names it.
 *
 * @param value the offset for {@link To#OFFSET}, the timestamp in ms for {@link To#TIMESTAMP}, unused otherwise
 */
public record OffsetReset(To to, long value) {
    public enum To {
        EARLIEST,
        LATEST,
        OFFSET,
        TIMESTAMP
    }

    /** One partition's new committed offset. */
    public record Moved(String topic, int partition, long offset) {}
}
