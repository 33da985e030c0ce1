package io.varve.broker.network;

import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * A file region over a channel that the log owns: releasing the region must not close the segment file.
 * Extending DefaultFileRegion keeps Netty's native sendfile path (epoll checks for this type).
 */
final class SharedFileRegion extends DefaultFileRegion {

    SharedFileRegion(FileChannel channel, long position, long count) {
        super(channel, position, count);
    }

    @Override
    protected void deallocate() {
        // The segment's FileChannel belongs to the log; it is closed when the segment file is deleted.
    }
}
