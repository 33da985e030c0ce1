package io.varve.metadata.snapshot;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.MetadataRecordFormatException;
import io.varve.metadata.record.MetadataRecordSequence;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A {@link MetadataImage} as the bytes of a snapshot: the records that rebuild it from the empty image, as Kafka's
 * metadata snapshots hold them (features with {@code metadata.version} first, brokers, topics and partitions,
 * configs, producer ids). Loading replays them into an empty image. Big-endian:
 *
 * <pre>
 *   int32   magic          "VMS1"
 *   int8    version        0
 *   int64   imageOffset    the offset of the last record the image applied (the snapshot's end offset - 1)
 *   records                {@link MetadataRecordSequence}: length-prefixed {@code MetadataRecordSerde} records
 *   uvarint 0              end of the records
 *   int64   recordCount
 *   int32   crc32c         of every byte before it
 * </pre>
 *
 * <p>The checksum is the state machine's own, on top of the Raft store's file checksum: it travels with the bytes
 * through FetchSnapshot, so a snapshot damaged anywhere between the leader's disk and this replica's loader is
 * refused before a single record is applied. Pure; thread-safe.
 */
public final class MetadataSnapshotFormat {
    private static final int MAGIC = 0x564D5331; // "VMS1"
    private static final byte VERSION = 0;
    private static final int HEADER_BYTES = 4 + 1 + 8;
    private static final int TRAILER_BYTES = 1 + 8 + 4;
    /** A guess per partition (a PartitionRecord of three replicas is about 30 bytes) so the array rarely grows. */
    private static final int BYTES_PER_PARTITION_GUESS = 36;

    private MetadataSnapshotFormat() {}

    /** An image and the delta that built it from {@link MetadataImage#EMPTY} (what publishers see at start-up). */
    public record Loaded(MetadataImage image, MetadataDelta deltaFromEmpty, long records) {}

    /** The snapshot of {@code image}; its end offset is {@code image.offset() + 1}. */
    public static byte[] write(MetadataImage image) {
        Objects.requireNonNull(image, "image");
        long guess = HEADER_BYTES
                + TRAILER_BYTES
                + 1024L
                + (long) image.topics().totalPartitions() * BYTES_PER_PARTITION_GUESS
                + image.topics().topicsById().size() * 64L
                + image.cluster().brokers().size() * 256L;
        MetadataRecordSequence.Writer out =
                new MetadataRecordSequence.Writer((int) Math.min(guess, Integer.MAX_VALUE - 64));
        out.writeFixedInt(MAGIC);
        out.writeByte(VERSION);
        out.writeFixedLong(image.offset());
        image.writeRecords(out::append);
        out.writeByte((byte) 0);
        out.writeFixedLong(out.records());
        out.writeFixedInt(out.crc32c());
        return out.finish();
    }

    /**
     * Replays a snapshot into the empty image.
     *
     * @param expectedImageOffset the offset the snapshot's id says it ends before, less one
     * @throws CorruptSnapshotException if the bytes fail their checksum, are not whole, or disagree with the id
     */
    public static Loaded read(byte[] bytes, long expectedImageOffset) {
        verify(bytes, expectedImageOffset);
        int crcAt = bytes.length - 4;
        MetadataRecordSequence.Reader in = new MetadataRecordSequence.Reader(bytes, HEADER_BYTES, crcAt - 8 - 1);
        long imageOffset = expectedImageOffset; // verified against the header
        long expectedRecords = new MetadataRecordSequence.Reader(bytes, crcAt - 8, crcAt).readFixedLong();
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        long records = 0;
        try {
            while (in.position() < crcAt - 8 - 1) {
                MetadataRecord record = in.next();
                delta.replay(record);
                records++;
            }
        } catch (MetadataRecordFormatException | IllegalStateException e) {
            throw new CorruptSnapshotException(
                    "metadata snapshot at offset " + imageOffset + " has a bad record after " + records, e);
        }
        if (records != expectedRecords) {
            throw new CorruptSnapshotException("metadata snapshot at offset " + imageOffset + " holds " + records
                    + " records, its trailer says " + expectedRecords);
        }
        MetadataImage image;
        try {
            image = delta.apply(imageOffset);
        } catch (IllegalStateException e) {
            throw new CorruptSnapshotException("metadata snapshot at offset " + imageOffset + " is not an image", e);
        }
        return new Loaded(image, delta, records);
    }

    /**
     * Checks the checksum, the header and the end mark without decoding a record: cheap enough to run before a
     * snapshot fetched from the leader is stored.
     *
     * @throws CorruptSnapshotException as {@link #read}
     */
    public static void verify(byte[] bytes, long expectedImageOffset) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < HEADER_BYTES + TRAILER_BYTES) {
            throw new CorruptSnapshotException(
                    "metadata snapshot of " + bytes.length + " bytes is shorter than its header and trailer");
        }
        int crcAt = bytes.length - 4;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, crcAt);
        MetadataRecordSequence.Reader trailer = new MetadataRecordSequence.Reader(bytes, crcAt, bytes.length);
        int storedCrc = trailer.readFixedInt();
        if ((int) crc.getValue() != storedCrc) {
            throw new CorruptSnapshotException(String.format(
                    "metadata snapshot at offset %d fails its checksum (crc32c %08x, stored %08x): not applied",
                    expectedImageOffset, (int) crc.getValue(), storedCrc));
        }
        MetadataRecordSequence.Reader in = new MetadataRecordSequence.Reader(bytes, 0, crcAt - 8 - 1);
        if (in.readFixedInt() != MAGIC) {
            throw new CorruptSnapshotException("not a metadata snapshot (bad magic)");
        }
        byte version = in.readByte();
        if (version != VERSION) {
            throw new CorruptSnapshotException("metadata snapshot version " + version + " is not supported");
        }
        long imageOffset = in.readFixedLong();
        if (imageOffset != expectedImageOffset) {
            throw new CorruptSnapshotException("metadata snapshot holds the image at offset " + imageOffset
                    + " but its id says " + expectedImageOffset);
        }
        if (bytes[crcAt - 8 - 1] != 0) {
            throw new CorruptSnapshotException("metadata snapshot at offset " + imageOffset + " lacks its end mark");
        }
    }
}
