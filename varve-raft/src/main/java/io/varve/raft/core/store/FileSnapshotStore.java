package io.varve.raft.core.store;

import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.runtime.SnapshotStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots as files named as in KIP-630, {@code <endOffset 20 digits>-<epoch 10 digits>.checkpoint}.
 * A file is a header and the snapshot's bytes. Big-endian:
 *
 * <pre>
 *   int32  magic      "VSN1"
 *   int64  dataBytes
 *   int32  crc32c     of the data
 *   bytes  data       what the core stored (SnapshotFormat: voters header, then the state machine's bytes)
 * </pre>
 *
 * <p>Durability: a write goes to {@code <name>.checkpoint.part}, is fsynced, renamed to its final name and
 * the directory fsynced; only then are older snapshots deleted, so a crash leaves at least one whole
 * snapshot. Leftover {@code .part} files are deleted on open. A snapshot's checksum is verified before its
 * first byte is served (on open for the latest, on first read for any other); a mismatch fails loudly.
 *
 * <p>Threading: one thread at a time, as the core calls it.
 */
public final class FileSnapshotStore implements SnapshotStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileSnapshotStore.class);
    static final String SUFFIX = ".checkpoint";
    static final String PART_SUFFIX = ".part";
    private static final int MAGIC = 0x56534E31; // "VSN1"
    private static final int HEADER_BYTES = 4 + 8 + 4;
    private static final int CRC_CHUNK_BYTES = 64 * 1024;
    /** The core hands snapshots over as one array. */
    private static final long MAX_DATA_BYTES = Integer.MAX_VALUE - 64;

    private final Path dir;
    private final Set<SnapshotId> verified = new HashSet<>();
    private SnapshotId latest;

    public FileSnapshotStore(Path dir) {
        StoreDirs.create(dir);
        this.dir = dir;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path part : files.filter(f -> f.getFileName().toString().endsWith(SUFFIX + PART_SUFFIX))
                    .toList()) {
                LOG.warn("Deleting {}, a snapshot a crash left half written", part);
                Files.delete(part);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + dir, e);
        }
        List<SnapshotId> stored = stored();
        if (!stored.isEmpty()) {
            latest = stored.get(stored.size() - 1);
            verify(latest);
            deleteOlderThan(latest);
        }
    }

    static Path fileOf(Path dir, SnapshotId id) {
        return dir.resolve(String.format("%020d-%010d%s", id.endOffset(), id.epoch(), SUFFIX));
    }

    /** The id a snapshot file name encodes, or empty if the name is not a snapshot's. */
    static Optional<SnapshotId> idOf(Path file) {
        String name = file.getFileName().toString();
        if (name.length() != 20 + 1 + 10 + SUFFIX.length() || !name.endsWith(SUFFIX) || name.charAt(20) != '-') {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new SnapshotId(Long.parseLong(name.substring(0, 20)), Integer.parseInt(name.substring(21, 31))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public Optional<SnapshotId> latest() {
        return Optional.ofNullable(latest);
    }

    @Override
    public long sizeBytes(SnapshotId id) {
        verify(id);
        try (FileChannel channel = FileChannel.open(fileOf(dir, id), StandardOpenOption.READ)) {
            return channel.size() - HEADER_BYTES;
        } catch (IOException e) {
            throw new UncheckedIOException("could not open snapshot " + id + " in " + dir, e);
        }
    }

    @Override
    public byte[] read(SnapshotId id, long position, int maxBytes) {
        verify(id);
        Path file = fileOf(dir, id);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long dataBytes = channel.size() - HEADER_BYTES;
            if (position < 0 || position > dataBytes || maxBytes < 0) {
                throw new IllegalArgumentException("read " + maxBytes + " bytes at " + position + " of snapshot " + id
                        + " (" + dataBytes + " bytes)");
            }
            ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(maxBytes, dataBytes - position));
            DurableIo.readFully(channel, chunk, HEADER_BYTES + position);
            return chunk.array();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read snapshot " + file, e);
        }
    }

    @Override
    public void write(SnapshotId id, byte[] data) {
        if (latest != null && id.endOffset() < latest.endOffset()) {
            throw new IllegalArgumentException("snapshot " + id + " is older than the latest " + latest);
        }
        Path file = fileOf(dir, id);
        Path part = file.resolveSibling(file.getFileName() + PART_SUFFIX);
        CRC32C crc = new CRC32C();
        crc.update(data);
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES)
                .putInt(MAGIC)
                .putLong(data.length)
                .putInt((int) crc.getValue())
                .flip();
        try {
            try (FileChannel channel = FileChannel.open(
                    part, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                DurableIo.writeFully(channel, header, 0);
                DurableIo.writeFully(channel, ByteBuffer.wrap(data), HEADER_BYTES);
                channel.force(true);
            }
            Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            DurableIo.fsyncDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write snapshot " + file, e);
        }
        verified.add(id);
        latest = id;
        deleteOlderThan(id);
        LOG.info("Stored snapshot {} ({} bytes) in {}", id, data.length, dir);
    }

    private List<SnapshotId> stored() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(FileSnapshotStore::idOf)
                    .flatMap(Optional::stream)
                    .sorted(Comparator.comparingLong(SnapshotId::endOffset).thenComparingInt(SnapshotId::epoch))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + dir, e);
        }
    }

    /** Deletes every snapshot other than {@code keep}; called once {@code keep} is durable. */
    private void deleteOlderThan(SnapshotId keep) {
        List<SnapshotId> older = new ArrayList<>(stored());
        older.remove(keep);
        if (older.isEmpty()) {
            return;
        }
        try {
            for (SnapshotId id : older) {
                Files.deleteIfExists(fileOf(dir, id));
                verified.remove(id);
            }
            DurableIo.fsyncDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete old snapshots in " + dir, e);
        }
    }

    /** Checks the header and the checksum of a snapshot once per process; fails loudly on a mismatch. */
    private void verify(SnapshotId id) {
        if (verified.contains(id)) {
            return;
        }
        Path file = fileOf(dir, id);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long fileBytes = channel.size();
            if (fileBytes < HEADER_BYTES) {
                throw new CorruptStoreException("snapshot " + file + " is shorter than its header");
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            DurableIo.readFully(channel, header, 0);
            long dataBytes = header.getLong(4);
            if (header.getInt(0) != MAGIC || dataBytes != fileBytes - HEADER_BYTES || dataBytes > MAX_DATA_BYTES) {
                throw new CorruptStoreException("snapshot " + file + " has a bad header (" + dataBytes
                        + " data bytes in a " + fileBytes + "-byte file)");
            }
            CRC32C crc = new CRC32C();
            ByteBuffer chunk = ByteBuffer.allocate(CRC_CHUNK_BYTES);
            for (long at = HEADER_BYTES; at < fileBytes; at += chunk.limit()) {
                chunk.clear().limit((int) Math.min(CRC_CHUNK_BYTES, fileBytes - at));
                DurableIo.readFully(channel, chunk, at);
                crc.update(chunk.flip());
            }
            if ((int) crc.getValue() != header.getInt(12)) {
                throw new CorruptStoreException("snapshot " + file + " fails its checksum: refusing to serve it");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not read snapshot " + file, e);
        }
        verified.add(id);
    }
}
