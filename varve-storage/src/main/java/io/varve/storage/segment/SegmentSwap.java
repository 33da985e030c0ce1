package io.varve.storage.segment;

import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash-safe replacement of a run of rolled segments by new ones (the compaction seam). The protocol:
 * <ol>
 *   <li>the new segments are written and fsynced as {@code <base>.log.cleaned} (+ indexes);</li>
 *   <li>COMMIT: the manifest {@value #MANIFEST_FILE} listing the replaced and the new base offsets is
 *       written atomically;</li>
 *   <li>the replaced segments' files are renamed to {@code .deleted} (deleted after file.delete.delay.ms),
 *       then the new ones renamed from {@code .cleaned} to their live names; the directory is fsynced;</li>
 *   <li>the manifest is deleted.</li>
 * </ol>
 * On load {@link #completePendingSwap} finishes a committed swap (steps 3 and 4, idempotently); without
 * a manifest, leftover {@code .cleaned} files are an uncommitted swap and the loader deletes them. The
 * manifest is one atomic write, so the log is always either wholly before or wholly after a swap.
 */
public final class SegmentSwap {

    public static final String MANIFEST_FILE = "segment-swap-manifest";
    private static final String VERSION_LINE = "0";
    private static final String REPLACED = "replaced";
    private static final String CLEANED = "cleaned";
    private static final String[] KINDS = {
        SegmentFiles.LOG_SUFFIX,
        SegmentFiles.INDEX_SUFFIX,
        SegmentFiles.TIME_INDEX_SUFFIX,
        SegmentFiles.TXN_INDEX_SUFFIX
    };
    private static final Logger log = LoggerFactory.getLogger(SegmentSwap.class);

    /** The replaced segments' and the new segments' base offsets, ascending. */
    public record Manifest(List<Long> replacedBaseOffsets, List<Long> cleanedBaseOffsets) {
        public Manifest {
            replacedBaseOffsets = List.copyOf(replacedBaseOffsets);
            cleanedBaseOffsets = List.copyOf(cleanedBaseOffsets);
        }
    }

    private SegmentSwap() {}

    /** Step 2, the commit point. */
    public static void writeManifest(Path dir, Manifest manifest) throws IOException {
        String text = VERSION_LINE + "\n" + line(REPLACED, manifest.replacedBaseOffsets()) + "\n"
                + line(CLEANED, manifest.cleanedBaseOffsets()) + "\n";
        DurableFiles.writeAtomically(
                dir.resolve(MANIFEST_FILE), ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Step 4. */
    public static void deleteManifest(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(MANIFEST_FILE));
        DurableFiles.fsyncDirectory(dir);
    }

    /** Finishes a swap whose manifest exists; returns false when there is none. Safe to repeat. */
    public static boolean completePendingSwap(Path dir) throws IOException {
        Path file = dir.resolve(MANIFEST_FILE);
        if (!Files.exists(file)) {
            return false;
        }
        Manifest manifest = readManifest(file);
        for (long replaced : manifest.replacedBaseOffsets()) {
            boolean newOneStillPending = manifest.cleanedBaseOffsets().contains(replaced)
                    && Files.exists(dir.resolve(
                            SegmentFiles.fileName(replaced, SegmentFiles.LOG_SUFFIX + SegmentFiles.CLEANED_SUFFIX)));
            // a live file of a replaced base is the old segment unless the new one of that base was promoted already
            if (!manifest.cleanedBaseOffsets().contains(replaced) || newOneStillPending) {
                renameFiles(dir, replaced, "", SegmentFiles.DELETED_SUFFIX);
            }
        }
        for (long cleaned : manifest.cleanedBaseOffsets()) {
            renameFiles(dir, cleaned, SegmentFiles.CLEANED_SUFFIX, "");
        }
        DurableFiles.fsyncDirectory(dir);
        deleteManifest(dir);
        log.info(
                "{}: completed the segment swap of {} by {} left by a crash",
                dir.getFileName(),
                manifest.replacedBaseOffsets(),
                manifest.cleanedBaseOffsets());
        return true;
    }

    private static void renameFiles(Path dir, long baseOffset, String fromSuffix, String toSuffix) throws IOException {
        for (String kind : KINDS) {
            Path from = dir.resolve(SegmentFiles.fileName(baseOffset, kind + fromSuffix));
            if (Files.exists(from)) {
                Files.move(
                        from,
                        dir.resolve(SegmentFiles.fileName(baseOffset, kind + toSuffix)),
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    static Manifest readManifest(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.size() < 3 || !lines.get(0).trim().equals(VERSION_LINE)) {
            throw new KafkaStorageException("Malformed " + file + ": expected a version line and two offset lines");
        }
        return new Manifest(offsets(file, lines.get(1), REPLACED), offsets(file, lines.get(2), CLEANED));
    }

    private static String line(String key, List<Long> offsets) {
        StringBuilder text = new StringBuilder(key);
        offsets.forEach(offset -> text.append(' ').append(offset));
        return text.toString();
    }

    private static List<Long> offsets(Path file, String line, String key) {
        String[] fields = line.trim().split(" ");
        if (!fields[0].equals(key)) {
            throw new KafkaStorageException(
                    "Malformed " + file + ": expected a '" + key + "' line, got '" + line + "'");
        }
        List<Long> offsets = new ArrayList<>();
        try {
            Arrays.stream(fields).skip(1).forEach(f -> offsets.add(Long.parseLong(f)));
        } catch (NumberFormatException e) {
            throw new KafkaStorageException("Malformed " + file + ": not a number in '" + line + "'", e);
        }
        return offsets;
    }
}
