package io.varve.http.view;

/**
 * Which messages the message browser asks for.
 *
 * @param partition  one partition, or -1 for every partition of the topic
 * @param value      the first offset for {@link From#OFFSET}, a timestamp in ms for {@link From#TIMESTAMP}, unused
 *                   for {@link From#END} (the last {@code limit} messages before the end)
 * @param limit      at most this many messages per partition
 */
public record BrowseQuery(String topic, int partition, From from, long value, int limit) {
    public enum From {
        OFFSET,
        TIMESTAMP,
        END
    }
}
