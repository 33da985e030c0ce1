package io.varve.metadata.record;

import java.util.Objects;

/**
 * Many records in one array, each behind its length: how a metadata snapshot holds an image. The records are
 * encoded straight into one growing array (through one reused scratch buffer), never one array per record, so
 * writing a million-partition image costs the snapshot's bytes and little else.
 *
 * <pre>
 *   per record:  unsigned varint  length (never 0: a record has at least its type and version)
 *                bytes            {@link MetadataRecordSerde}'s encoding
 * </pre>
 *
 * <p>The writer and reader also carry the few fixed-width fields a container (the snapshot's header and trailer)
 * puts around the records. Neither is thread-safe.
 */
public final class MetadataRecordSequence {

    private MetadataRecordSequence() {}

    /** Appends records (and fixed-width fields) to one array. */
    public static final class Writer {
        private final ByteWriter out;
        private final ByteWriter scratch = new ByteWriter(256);
        private long records;

        /** @param expectedBytes a size guess: the array starts this large, so a good guess never copies it */
        public Writer(int expectedBytes) {
            out = new ByteWriter(expectedBytes);
        }

        public void writeFixedInt(int value) {
            out.writeFixedInt(value);
        }

        public void writeFixedLong(long value) {
            out.writeFixedLong(value);
        }

        public void writeByte(byte value) {
            out.writeByte(value);
        }

        public void append(MetadataRecord record) {
            Objects.requireNonNull(record, "record");
            scratch.reset();
            MetadataRecordSerde.write(record, scratch);
            out.writeUnsignedVarInt(scratch.size());
            out.writeAll(scratch);
            records++;
        }

        /** Records appended so far. */
        public long records() {
            return records;
        }

        public int sizeBytes() {
            return out.size();
        }

        /** CRC32C of everything written so far. */
        public int crc32c() {
            return out.crc32c();
        }

        /** The bytes written; the writer must not be used afterwards. */
        public byte[] finish() {
            return out.array();
        }
    }

    /** Reads what a {@link Writer} wrote, within {@code [from, to)} of an array, without copying records out. */
    public static final class Reader {
        private final byte[] bytes;
        private final ByteReader in;

        public Reader(byte[] bytes, int from, int to) {
            this.bytes = bytes;
            in = new ByteReader(bytes, from, to);
        }

        public int readFixedInt() {
            return in.readFixedInt();
        }

        public long readFixedLong() {
            return in.readFixedLong();
        }

        public byte readByte() {
            return in.readByte();
        }

        /** The position in the array of the next byte to read. */
        public int position() {
            return in.position();
        }

        /**
         * The next record.
         *
         * @throws MetadataRecordFormatException if the bytes are not a length and one whole record of that length
         */
        public MetadataRecord next() {
            int length = in.readUnsignedVarInt();
            if (length == 0) {
                throw new MetadataRecordFormatException("empty record at position " + in.position());
            }
            int start = in.position();
            in.skip(length);
            return MetadataRecordSerde.read(new ByteReader(bytes, start, start + length));
        }
    }
}
