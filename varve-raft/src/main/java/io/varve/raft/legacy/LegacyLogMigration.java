package io.varve.raft.legacy;

import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a metadata log written by the single-voter node of earlier releases ({@value #LEGACY_DIR_NAME}) onto the
 * KRaft-style log ({@value MetadataRaftRuntime#DIR_NAME}), once, at start-up, so that an upgraded node keeps its topics,
 * configs and offsets' topics. That node was always a quorum of one, so everything in its log is committed.
 *
 * <p>Crash-safe by construction: the batches are appended to a lone-voter log in a work directory, which is renamed
 * into place only once complete and closed (the rename is the commit point); the old directory is then renamed to
 * {@value #MIGRATED_DIR_NAME} (kept, not deleted: an operator can remove it). A start that finds the work directory
 * (a crash before the rename) starts over; one that finds both the new log and the old directory (a crash between
 * the renames) only renames the old one. Offsets are not kept (the new log holds control entries of its own); nothing
 * refers to a metadata offset across a restart.
 */
public final class LegacyLogMigration {
    private static final Logger LOG = LoggerFactory.getLogger(LegacyLogMigration.class);

    public static final String LEGACY_DIR_NAME = "__cluster_metadata-0";
    public static final String MIGRATED_DIR_NAME = "__cluster_metadata-0.migrated";
    static final String WORK_DIR_NAME = "__cluster_metadata-migrating";
    private static final long APPEND_TIMEOUT_MS = 60_000;
    /** Batches appended before waiting for their commits: bounds what is in flight. */
    private static final int BATCHES_IN_FLIGHT = 256;

    private LegacyLogMigration() {}

    /**
     * Migrates {@code <parentDir>/}{@value #LEGACY_DIR_NAME} if it is there; returns the number of records moved (0
     * when there was nothing to do).
     */
    public static long migrateIfPresent(Path parentDir, int nodeId, String clusterId) {
        Path legacy = parentDir.resolve(LEGACY_DIR_NAME);
        if (!Files.isDirectory(legacy)) {
            return 0;
        }
        Path target = MetadataRaftRuntime.storeDir(parentDir);
        try {
            if (Files.exists(target)) {
                retire(parentDir, legacy);
                return 0;
            }
            Path work = parentDir.resolve(WORK_DIR_NAME);
            deleteRecursively(work);
            long records = copy(legacy, work, nodeId, clusterId);
            Files.move(MetadataRaftRuntime.storeDir(work), target, StandardCopyOption.ATOMIC_MOVE);
            fsyncDirectory(parentDir);
            deleteRecursively(work);
            retire(parentDir, legacy);
            LOG.info(
                    "Moved the metadata log of {} ({} records, written by an earlier release) to {}; the old directory"
                            + " is kept as {} and may be deleted",
                    legacy,
                    records,
                    target,
                    parentDir.resolve(MIGRATED_DIR_NAME));
            return records;
        } catch (IOException e) {
            throw new UncheckedIOException("Moving the metadata log of " + legacy + " to " + target + " failed", e);
        }
    }

    private static long copy(Path legacy, Path work, int nodeId, String clusterId) throws IOException {
        long records = 0;
        try (FileRaftLog old = FileRaftLog.open(legacy);
                MetadataRaftRuntime runtime = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                        nodeId, clusterId, Set.of(nodeId), work, RaftTransport.none(), APPEND_TIMEOUT_MS))) {
            runtime.start();
            long next = 0;
            List<CompletableFuture<Long>> inFlight = new ArrayList<>();
            while (next < old.endOffset()) {
                List<LogBatch> batches = old.read(next, old.endOffset(), MetadataRaftRuntime.MAX_BATCH_ENTRIES);
                if (batches.isEmpty()) {
                    throw new IllegalStateException(
                            "the log of " + legacy + " ends at " + old.endOffset() + " but holds nothing from " + next);
                }
                for (LogBatch batch : batches) {
                    List<byte[]> payloads = batch.payloads();
                    // A batch larger than the new log takes in one append is split: every record is committed
                    // already, and the loader replays the whole log before the node serves.
                    for (int from = 0; from < payloads.size(); from += MetadataRaftRuntime.MAX_BATCH_ENTRIES) {
                        int to = Math.min(payloads.size(), from + MetadataRaftRuntime.MAX_BATCH_ENTRIES);
                        inFlight.add(runtime.append(payloads.subList(from, to)));
                        if (inFlight.size() >= BATCHES_IN_FLIGHT) {
                            await(inFlight);
                        }
                    }
                    records += payloads.size();
                    next = batch.nextOffset();
                }
            }
            await(inFlight);
        }
        return records;
    }

    private static void await(List<CompletableFuture<Long>> inFlight) {
        for (CompletableFuture<Long> append : inFlight) {
            try {
                append.get(APPEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while moving the metadata log", e);
            } catch (Exception e) {
                throw new IllegalStateException("appending to the new metadata log failed: " + e, e);
            }
        }
        inFlight.clear();
    }

    private static void retire(Path parentDir, Path legacy) throws IOException {
        Path migrated = parentDir.resolve(MIGRATED_DIR_NAME);
        deleteRecursively(migrated);
        Files.move(legacy, migrated, StandardCopyOption.ATOMIC_MOVE);
        fsyncDirectory(parentDir);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
