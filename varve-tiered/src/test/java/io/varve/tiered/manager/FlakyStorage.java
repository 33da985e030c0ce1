package io.varve.tiered.manager;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.IndexType;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import io.varve.tiered.spi.SegmentFiles;
import java.io.InputStream;

/** A real backend that can be switched "down": every call then fails with a retriable error. */
final class FlakyStorage implements RemoteStorage {
    private final RemoteStorage delegate;
    volatile boolean down;

    FlakyStorage(RemoteStorage delegate) {
        this.delegate = delegate;
    }

    private void check() throws RemoteStorageException {
        if (down) {
            throw new RemoteStorageException("store unreachable (test)", true);
        }
    }

    /** Runs once after the next copy (for example a compaction swapping the segment under the upload). */
    volatile Runnable afterNextCopy;

    @Override
    public void copySegment(RemoteSegmentMetadata metadata, SegmentFiles files) throws RemoteStorageException {
        check();
        delegate.copySegment(metadata, files);
        Runnable after = afterNextCopy;
        afterNextCopy = null;
        if (after != null) {
            after.run();
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteSegmentMetadata metadata, long startPosition, long endPosition)
            throws RemoteStorageException {
        check();
        return delegate.fetchLogSegment(metadata, startPosition, endPosition);
    }

    @Override
    public InputStream fetchIndex(RemoteSegmentMetadata metadata, IndexType indexType) throws RemoteStorageException {
        check();
        return delegate.fetchIndex(metadata, indexType);
    }

    @Override
    public void deleteSegment(RemoteSegmentMetadata metadata) throws RemoteStorageException {
        check();
        delegate.deleteSegment(metadata);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
