package io.varve.http.view;

/**
 * The lag of one partition a consumer group committed an offset for.
 *
 * @param logEndOffset   the offset a consumer can read to (the high watermark)
 * @param lag            log end offset minus committed offset, at least 0
 * @param lagSeconds     the age of the first record not consumed yet (now minus its timestamp), 0 without lag
 */
public record GroupLag(
        String group,
        String topic,
        int partition,
        long committedOffset,
        long logEndOffset,
        long lag,
        double lagSeconds) {}
