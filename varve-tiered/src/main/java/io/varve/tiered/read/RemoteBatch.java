package io.varve.tiered.read;

import io.varve.storage.batch.BatchHeader;
import java.nio.ByteBuffer;

/**
 * One record batch found in a remote segment by a time lookup: its parsed header (positions are in the segment) and
 * its bytes, so that the caller can narrow the answer to a record.
 */
public record RemoteBatch(BatchHeader header, ByteBuffer bytes) {}
