package io.varve.storage.segment;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Names of files in a partition directory that carry an offset: the offset zero-padded to 20 digits
 * plus a suffix ({@code 00000000000000001234.log}). A state suffix may follow: {@code .deleted} for a
 * segment waiting for its delayed deletion, {@code .cleaned} for a segment a cleaner wrote but has
 * not swapped in yet.
 */
public final class SegmentFiles {

    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    /** A segment's aborted-transaction index; present only once the segment holds an ABORT marker. */
    public static final String TXN_INDEX_SUFFIX = ".txnindex";

    public static final String SNAPSHOT_SUFFIX = ".snapshot";
    /** State suffix of a retired segment's files until file.delete.delay.ms has passed. */
    public static final String DELETED_SUFFIX = ".deleted";
    /** State suffix of a cleaner's output until it is swapped in. */
    public static final String CLEANED_SUFFIX = ".cleaned";

    private static final int OFFSET_DIGITS = 20;

    private SegmentFiles() {}

    public static String fileName(long baseOffset, String suffix) {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("Negative base offset " + baseOffset);
        }
        // Not String.format: start-up names every segment's files, and a Formatter per name is costly on a cold JVM.
        String digits = Long.toString(baseOffset);
        StringBuilder name = new StringBuilder(OFFSET_DIGITS + suffix.length());
        for (int i = digits.length(); i < OFFSET_DIGITS; i++) {
            name.append('0');
        }
        return name.append(digits).append(suffix).toString();
    }

    public static Path logFile(Path dir, long baseOffset) {
        return dir.resolve(fileName(baseOffset, LOG_SUFFIX));
    }

    public static Path indexFile(Path dir, long baseOffset) {
        return dir.resolve(fileName(baseOffset, INDEX_SUFFIX));
    }

    public static Path timeIndexFile(Path dir, long baseOffset) {
        return dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX));
    }

    /** The base offset encoded in a file name with {@code suffix}, or empty when the name is not one. */
    public static OptionalLong parseBaseOffset(String fileName, String suffix) {
        if (!fileName.endsWith(suffix) || fileName.length() != OFFSET_DIGITS + suffix.length()) {
            return OptionalLong.empty();
        }
        String digits = fileName.substring(0, OFFSET_DIGITS);
        for (int i = 0; i < digits.length(); i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return OptionalLong.empty();
            }
        }
        try {
            return OptionalLong.of(Long.parseLong(digits));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
