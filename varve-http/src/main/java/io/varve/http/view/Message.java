package io.varve.http.view;

import java.util.List;

/**
 * One record as a consumer reads it (read_committed: aborted transactions and control records left out).
 *
 * @param key    null for a null key
 * @param value  null for a tombstone
 */
public record Message(int partition, long offset, long timestampMs, byte[] key, byte[] value, List<Header> headers) {
    public record Header(String key, byte[] value) {}
}
