package io.varve.storage.fs;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many segment files may hold an open descriptor at once, so that a node with many partitions never runs
 * out of descriptors for what else it opens (sockets, new logs, checkpoints, snapshots). The budget is the
 * process's open-file limit less a reserve for everything else, re-read when the budget is reached (so raising
 * the limit of a running node, e.g. with {@code prlimit}, takes effect without a restart).
 *
 * <p>Segment files open their descriptor on first use ({@link SegmentChannel}); indexes hold none. When the budget is
 * reached, descriptors idle for {@link #IDLE_BEFORE_EVICTION_NANOS} are given back (least recently used first): never
 * one in use, since a zero-copy send may still be reading through it. When none is idle an open fails with {@link
 * FileHandlesExhaustedException} — not an error for the caller to pass on: the segment then reads or writes through a
 * short-lived descriptor of its own instead (see {@code LogSegment}); only a process truly out of descriptors fails
 * the request, with a retriable error, never as a disk fault.
 */
public final class FileHandleBudget {

    private static final Logger log = LoggerFactory.getLogger(FileHandleBudget.class);

    /** How long a descriptor must be unused before the budget takes it back (a zero-copy send may use it until then). */
    public static final long IDLE_BEFORE_EVICTION_NANOS = 10_000_000_000L;

    private static final long LIMIT_RECHECK_NANOS = 1_000_000_000L;
    private static final int MIN_RESERVE = 32;

    private static final int MAX_RESERVE = 4096;

    private static final FileHandleBudget SHARED =
            new FileHandleBudget(FileHandleBudget::processOpenFileLimit, System::nanoTime);

    private final LongSupplier openFileLimit;
    private final LongSupplier nanoClock;
    private final Set<SegmentChannel> open = new HashSet<>();

    private long limit;
    private int budget;
    private long limitCheckedAtNanos;
    private boolean warnedExhausted;
    /**
     * No descriptor can be idle long enough before this time (the oldest use seen by the last scan, plus the idle
     * time): until then an open past the budget fails at once instead of scanning every descriptor again.
     */
    private long noIdleBeforeNanos;

    /** The budget every log of this process shares. */
    public static FileHandleBudget shared() {
        return SHARED;
    }

    public FileHandleBudget(LongSupplier openFileLimit, LongSupplier nanoClock) {
        this.openFileLimit = openFileLimit;
        this.nanoClock = nanoClock;
        this.limitCheckedAtNanos = nanoClock.getAsLong();
        this.noIdleBeforeNanos = limitCheckedAtNanos;
        setLimit(openFileLimit.getAsLong());
    }

    /** The process's open-file (soft) limit, or {@code Integer.MAX_VALUE} when the platform does not say. */
    public static long processOpenFileLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            long max = os.getMaxFileDescriptorCount();
            return max > 0 ? max : Integer.MAX_VALUE;
        }
        return Integer.MAX_VALUE;
    }

    /** Descriptors the process holds now, or -1 when the platform does not say. */
    public static long processOpenFileCount() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            return os.getOpenFileDescriptorCount();
        }
        return -1;
    }

    /** The reserve kept for everything but segment files: a quarter of the limit, within [32, 4096]. */
    public static long reserveFor(long limit) {
        return Math.max(MIN_RESERVE, Math.min(MAX_RESERVE, limit / 4));
    }

    private void setLimit(long newLimit) {
        if (newLimit != limit) {
            limit = newLimit;
            budget = (int) Math.max(16, Math.min(Integer.MAX_VALUE, newLimit - reserveFor(newLimit)));
            warnedExhausted = false;
        }
    }

    /** How many segment files may hold a descriptor at once. */
    public synchronized int budget() {
        return budget;
    }

    /** Segment files holding a descriptor now. */
    public synchronized int held() {
        return open.size();
    }

    /** Opens {@code handle}'s file within the budget; called with the handle's own lock held. */
    synchronized FileChannel open(SegmentChannel handle, SegmentChannel.Opener opener) throws IOException {
        long now = nanoClock.getAsLong();
        if (held() >= budget && now - limitCheckedAtNanos >= LIMIT_RECHECK_NANOS) {
            limitCheckedAtNanos = now;
            setLimit(openFileLimit.getAsLong());
        }
        if (held() >= budget && now - noIdleBeforeNanos >= 0) {
            evictIdle(now, handle);
        }
        if (held() >= budget) {
            if (!warnedExhausted) {
                warnedExhausted = true;
                log.warn(
                        "All {} segment file descriptors of the budget are in use (open-file limit {}, {} kept for"
                                + " sockets and other files): more segments are read and written through short-lived"
                                + " descriptors, which is slower; raise the limit (ulimit -n)",
                        budget,
                        limit,
                        limit - budget);
            }
            throw new FileHandlesExhaustedException("No segment file descriptor is free (budget " + budget
                    + " of open-file limit " + limit + "); raise the limit (ulimit -n)");
        }
        FileChannel channel = opener.open();
        open.add(handle);
        return channel;
    }

    /** {@code handle} closed its descriptor itself. */
    synchronized void released(SegmentChannel handle) {
        open.remove(handle);
    }

    /** Gives back up to a sixteenth of the descriptors, least recently used first, of those idle long enough. */
    private void evictIdle(long now, SegmentChannel keep) {
        int count = Math.max(1, open.size() / 16);
        List<SegmentChannel> idle = new ArrayList<>();
        long oldestBusyUseNanos = now;
        for (SegmentChannel candidate : open) {
            long usedNanos = candidate.lastUsedNanos();
            if (candidate != keep && now - usedNanos >= IDLE_BEFORE_EVICTION_NANOS) {
                idle.add(candidate);
            } else if (usedNanos - oldestBusyUseNanos < 0) {
                oldestBusyUseNanos = usedNanos;
            }
        }
        if (idle.isEmpty()) {
            noIdleBeforeNanos = oldestBusyUseNanos + IDLE_BEFORE_EVICTION_NANOS;
            return;
        }
        idle.sort(Comparator.comparingLong(SegmentChannel::lastUsedNanos));
        for (SegmentChannel victim : idle.subList(0, Math.min(count, idle.size()))) {
            FileChannel channel = victim.evict();
            open.remove(victim);
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException e) {
                    log.debug("closing an idle segment file failed", e);
                }
            }
        }
    }

    LongSupplier nanoClock() {
        return nanoClock;
    }
}
