package io.varve.storage.producer;

import io.varve.storage.fs.DurableFiles;
import io.varve.storage.segment.SegmentFiles;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Producer-state snapshot files, {@code <20-digit offset>.snapshot}, in Varve's own binary format
 * (big-endian), written atomically (temp file, fsync, rename, directory fsync):
 * <pre>
 * int32 magic "VPS1" | int16 version 2 | int32 CRC-32C of the body | int32 body length | body
 * body: int64 offset | int64 segmentBaseOffset | int32 segmentSizeBytes | int32 producerCount
 *       producerCount × (int64 producerId | int16 epoch
 *                        | int64 currentTxnFirstOffset | int32 coordinatorEpoch | int64 lastTimestampMs
 *                        | int8 batchCount
 *                        batchCount × (int32 firstSeq | int32 lastSeq | int64 firstOffset | int64 lastOffset
 *                                      | int64 timestampMs))
 * </pre>
 * Version 1 (before transactions) lacks the three transaction fields; it is still read (no transaction
 * open, no coordinator epoch, the last batch's timestamp).
 */
public final class ProducerSnapshotFiles {

    private static final int MAGIC = 0x56505331; // "VPS1"
    private static final short VERSION = 2;
    private static final short VERSION_WITHOUT_TXNS = 1;
    private static final int HEADER_BYTES = 4 + 2 + 4 + 4;
    private static final int BODY_FIXED_BYTES = 8 + 8 + 4 + 4;
    private static final int PRODUCER_FIXED_BYTES = 8 + 2 + 8 + 4 + 8 + 1;
    private static final int BATCH_BYTES = 4 + 4 + 8 + 8 + 8;

    private ProducerSnapshotFiles() {}

    public static Path path(Path dir, long offset) {
        return dir.resolve(SegmentFiles.fileName(offset, SegmentFiles.SNAPSHOT_SUFFIX));
    }

    /** Snapshot files of {@code dir} by offset. */
    public static NavigableMap<Long, Path> list(Path dir) throws IOException {
        NavigableMap<Long, Path> snapshots = new TreeMap<>();
        // No glob filter: a glob is compiled into a regex for every call, once per log at start-up.
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                OptionalLong offset =
                        SegmentFiles.parseBaseOffset(file.getFileName().toString(), SegmentFiles.SNAPSHOT_SUFFIX);
                if (offset.isPresent()) {
                    snapshots.put(offset.getAsLong(), file);
                }
            }
        }
        return snapshots;
    }

    public static void write(Path dir, ProducerSnapshot snapshot) throws IOException {
        write(dir, snapshot, true);
    }

    /**
     * {@link #write(Path, ProducerSnapshot)}; without {@code fsync} a power loss may leave an empty or torn file, which
     * {@link #read} refuses (a CRC covers the content), so the caller fsyncs it before relying on it.
     */
    public static void write(Path dir, ProducerSnapshot snapshot, boolean fsync) throws IOException {
        DurableFiles.replace(path(dir, snapshot.offset()), encode(snapshot), fsync);
    }

    /** The file was read and its content is not a valid snapshot: the one case that justifies deleting it. */
    public static final class InvalidSnapshotException extends IOException {
        public InvalidSnapshotException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * @throws InvalidSnapshotException the file is not a valid snapshot (bad magic, version, CRC or length)
     * @throws IOException the file cannot be read (which says nothing about its content)
     */
    public static ProducerSnapshot read(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        try {
            return decode(bytes);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new InvalidSnapshotException(file + " is not a valid producer snapshot: " + e.getMessage(), e);
        }
    }

    static ByteBuffer encode(ProducerSnapshot snapshot) {
        List<ProducerStateEntry> entries = new ArrayList<>(snapshot.producers().values());
        entries.sort((a, b) -> Long.compare(a.producerId(), b.producerId()));
        int bodyBytes = BODY_FIXED_BYTES;
        for (ProducerStateEntry entry : entries) {
            bodyBytes += PRODUCER_FIXED_BYTES + entry.batches().size() * BATCH_BYTES;
        }
        ByteBuffer body = ByteBuffer.allocate(bodyBytes);
        body.putLong(snapshot.offset())
                .putLong(snapshot.segmentBaseOffset())
                .putInt(snapshot.segmentSizeBytes())
                .putInt(entries.size());
        for (ProducerStateEntry entry : entries) {
            body.putLong(entry.producerId())
                    .putShort(entry.producerEpoch())
                    .putLong(entry.currentTxnFirstOffset())
                    .putInt(entry.coordinatorEpoch())
                    .putLong(entry.lastTimestampMs())
                    .put((byte) entry.batches().size());
            for (BatchMetadata batch : entry.batches()) {
                body.putInt(batch.firstSeq())
                        .putInt(batch.lastSeq())
                        .putLong(batch.firstOffset())
                        .putLong(batch.lastOffset())
                        .putLong(batch.timestampMs());
            }
        }
        body.flip();
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + bodyBytes);
        out.putInt(MAGIC)
                .putShort(VERSION)
                .putInt((int) crc.getValue())
                .putInt(bodyBytes)
                .put(body);
        return out.flip();
    }

    static ProducerSnapshot decode(ByteBuffer bytes) {
        if (bytes.getInt() != MAGIC) {
            throw new IllegalArgumentException("bad magic");
        }
        short version = bytes.getShort();
        if (version != VERSION && version != VERSION_WITHOUT_TXNS) {
            throw new IllegalArgumentException("unknown version " + version);
        }
        int storedCrc = bytes.getInt();
        int bodyBytes = bytes.getInt();
        if (bodyBytes != bytes.remaining()) {
            throw new IllegalArgumentException("body of " + bytes.remaining() + " bytes, header says " + bodyBytes);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        if ((int) crc.getValue() != storedCrc) {
            throw new IllegalArgumentException("CRC mismatch");
        }
        long offset = bytes.getLong();
        long segmentBaseOffset = bytes.getLong();
        int segmentSizeBytes = bytes.getInt();
        int count = bytes.getInt();
        if (count < 0) {
            throw new IllegalArgumentException("negative producer count");
        }
        Map<Long, ProducerStateEntry> producers = new HashMap<>();
        for (int i = 0; i < count; i++) {
            long producerId = bytes.getLong();
            short epoch = bytes.getShort();
            boolean withTxns = version != VERSION_WITHOUT_TXNS;
            long txnFirstOffset = withTxns ? bytes.getLong() : ProducerStateEntry.NO_TXN;
            int coordinatorEpoch = withTxns ? bytes.getInt() : ProducerStateEntry.NO_COORDINATOR_EPOCH;
            long lastTimestampMs = withTxns ? bytes.getLong() : Long.MIN_VALUE;
            int batchCount = Byte.toUnsignedInt(bytes.get());
            List<BatchMetadata> batches = new ArrayList<>(batchCount);
            for (int b = 0; b < batchCount; b++) {
                batches.add(new BatchMetadata(
                        bytes.getInt(), bytes.getInt(), bytes.getLong(), bytes.getLong(), bytes.getLong()));
            }
            producers.put(
                    producerId,
                    withTxns
                            ? new ProducerStateEntry(
                                    producerId, epoch, batches, txnFirstOffset, coordinatorEpoch, lastTimestampMs)
                            : new ProducerStateEntry(producerId, epoch, batches));
        }
        if (bytes.hasRemaining()) {
            throw new IllegalArgumentException(bytes.remaining() + " trailing bytes");
        }
        return new ProducerSnapshot(offset, segmentBaseOffset, segmentSizeBytes, producers);
    }
}
