package io.varve.storage.fs;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
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
 * reached the least recently used descriptors are given back: each is closed {@link #EVICTED_CLOSE_DELAY_NANOS}
 * later, not at once, because a zero-copy send may still be reading through it (the same grace a retired segment
 * gets). Only when nothing can be given back does an open fail, with {@link FileHandlesExhaustedException}: a
 * retriable condition, never a disk fault.
 */
public final class FileHandleBudget {

    private static final Logger log = LoggerFactory.getLogger(FileHandleBudget.class);

    /** How long an evicted descriptor stays open for reads in flight. */
    public static final long EVICTED_CLOSE_DELAY_NANOS = 10_000_000_000L;

    private static final long LIMIT_RECHECK_NANOS = 1_000_000_000L;
    private static final int MIN_RESERVE = 32;

    private static final int MAX_RESERVE = 4096;

    private static final FileHandleBudget SHARED =
            new FileHandleBudget(FileHandleBudget::processOpenFileLimit, System::nanoTime);

    private record Pending(FileChannel channel, long closeAtNanos) {}

    private final LongSupplier openFileLimit;
    private final LongSupplier nanoClock;
    private final Set<SegmentChannel> open = new HashSet<>();
    private final ArrayDeque<Pending> pendingClose = new ArrayDeque<>();
    private long limit;
    private int budget;
    private long limitCheckedAtNanos;
    private boolean warnedExhausted;

    /** The budget every log of this process shares. */
    public static FileHandleBudget shared() {
        return SHARED;
    }

    public FileHandleBudget(LongSupplier openFileLimit, LongSupplier nanoClock) {
        this.openFileLimit = openFileLimit;
        this.nanoClock = nanoClock;
        this.limitCheckedAtNanos = nanoClock.getAsLong();
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

    /** How many segment files may hold a descriptor (open ones and ones waiting to close). */
    public synchronized int budget() {
        return budget;
    }

    /** Segment files holding a descriptor now, evicted ones still waiting to close included. */
    public synchronized int held() {
        return open.size() + pendingClose.size();
    }

    /** Opens {@code handle}'s file within the budget; called with the handle's own lock held. */
    synchronized FileChannel open(SegmentChannel handle, SegmentChannel.Opener opener) throws IOException {
        long now = nanoClock.getAsLong();
        closeDue(now, false);
        if (held() >= budget && now - limitCheckedAtNanos >= LIMIT_RECHECK_NANOS) {
            limitCheckedAtNanos = now;
            setLimit(openFileLimit.getAsLong());
        }
        if (held() >= budget) {
            evictLeastRecentlyUsed(now, handle);
        }
        if (held() >= budget) {
            // evicted descriptors are all still in their grace period: close the oldest of them now
            closeDue(now, true);
        }
        if (held() >= budget) {
            if (!warnedExhausted) {
                warnedExhausted = true;
                log.warn(
                        "All {} segment file descriptors of the budget are in use (open-file limit {}, {} kept for"
                                + " sockets and other files); partitions that need one more answer a retriable"
                                + " error until descriptors free up or the limit is raised",
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

    /** Gives back about a sixteenth of the open descriptors, least recently used first, never {@code keep}'s. */
    private void evictLeastRecentlyUsed(long now, SegmentChannel keep) {
        int count = Math.max(1, open.size() / 16);
        List<SegmentChannel> candidates = new ArrayList<>(open);
        candidates.remove(keep);
        candidates.sort(Comparator.comparingLong(SegmentChannel::lastUsedNanos));
        for (SegmentChannel victim : candidates.subList(0, Math.min(count, candidates.size()))) {
            FileChannel channel = victim.evict();
            open.remove(victim);
            if (channel != null) {
                pendingClose.addLast(new Pending(channel, now + EVICTED_CLOSE_DELAY_NANOS));
            }
        }
    }

    /** Closes evicted descriptors whose grace ended (or, with {@code oldestNow}, the oldest one regardless). */
    private void closeDue(long now, boolean oldestNow) {
        boolean forceOne = oldestNow;
        while (!pendingClose.isEmpty() && (forceOne || pendingClose.peekFirst().closeAtNanos() - now <= 0)) {
            forceOne = false;
            try {
                pendingClose.pollFirst().channel().close();
            } catch (IOException e) {
                log.debug("closing an evicted segment file failed", e);
            }
        }
    }
}
