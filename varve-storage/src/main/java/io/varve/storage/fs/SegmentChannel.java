package io.varve.storage.fs;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Supplier;

/**
 * A segment file's descriptor, opened on first use within a {@link FileHandleBudget} and reopened after the budget
 * took it back. A new empty segment and a segment nobody reads hold no descriptor. Callers get the channel for one
 * operation and never keep it beyond that (a zero-copy send keeps it for the send, which the budget's grace allows).
 */
public final class SegmentChannel {

    @FunctionalInterface
    interface Opener {
        FileChannel open() throws IOException;
    }

    private final FileHandleBudget budget;
    private final Supplier<Path> path;
    private volatile FileChannel channel;
    private volatile long lastUsedNanos;
    /** The clock of {@link #lastUsedNanos}: the budget's, so tests can drive it. */
    private final java.util.function.LongSupplier nanoClock;

    private boolean closed;

    /** {@code path} names the file now (it changes when the segment is renamed). */
    public SegmentChannel(FileHandleBudget budget, Supplier<Path> path) {
        this.budget = budget;
        this.path = path;
        this.nanoClock = budget.nanoClock();
    }

    /** The open channel, opening the file if it holds no descriptor now. */
    public FileChannel get() throws IOException {
        FileChannel ch = channel;
        lastUsedNanos = nanoClock.getAsLong();
        if (ch != null) {
            return ch;
        }
        return openNow();
    }

    private synchronized FileChannel openNow() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        FileChannel ch = channel;
        if (ch == null) {
            ch = budget.open(
                    this,
                    () -> DurableFiles.openFollowingRenames(path, StandardOpenOption.READ, StandardOpenOption.WRITE));
            channel = ch;
        }
        return ch;
    }

    /** Whether the file holds a descriptor now. */
    public boolean isOpen() {
        return channel != null;
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    /** Called by the budget (under its lock): hands over the descriptor, which the budget closes. */
    FileChannel evict() {
        FileChannel ch = channel;
        channel = null;
        return ch;
    }

    /** Closes the descriptor now; later uses fail. */
    public void close() throws IOException {
        FileChannel ch;
        synchronized (this) {
            closed = true;
            ch = channel;
            channel = null;
        }
        budget.released(this);
        if (ch != null) {
            ch.close();
        }
    }
}
