package io.varve.http.view;

import java.util.List;

/**
 * What the browser read of one partition.
 *
 * @param startOffset   where the read began
 * @param nextOffset    the offset after the last record read (where the next page starts)
 * @param endOffset     the offset a read_committed consumer can read to (the last stable offset)
 * @param error         the Kafka error of this partition, or null
 */
public record BrowsedPartition(
        int partition, long startOffset, long nextOffset, long endOffset, List<Message> messages, String error) {}
