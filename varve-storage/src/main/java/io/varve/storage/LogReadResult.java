package io.varve.storage;

import java.nio.ByteBuffer;

/**
 * Whole record batches, bytes exactly as stored on disk, plus the log offsets seen by the read.
 *
 * @param records position 0 to limit holds zero or more complete batches
 */
public record LogReadResult(ByteBuffer records, long highWatermark, long logStartOffset, long logEndOffset) {}
