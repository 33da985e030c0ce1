package io.varve.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of a broker that can cut every connection after a number of client-to-broker
 * bytes: requests the broker has received lose their responses, so clients must retry them.
 * Advertise its port ({@code advertised.listeners}) so that clients reach the broker only through it.
 */
final class TcpProxy extends LoopbackProxy {
    private final AtomicLong bytesSinceCut = new AtomicLong();
    private final AtomicInteger cutsLeft = new AtomicInteger();
    private final AtomicInteger cutsDone = new AtomicInteger();
    private volatile long cutEveryBytes = Long.MAX_VALUE;

    TcpProxy() throws IOException {
        super("tcp-proxy");
    }

    @Override
    protected void forward(Socket client, Socket upstream) {
        run(() -> pump(client, upstream, true));
        run(() -> pump(upstream, client, false));
    }

    /** From now on, cuts all connections each time {@code bytes} more client bytes were forwarded, {@code times} times. */
    void cutConnectionsEvery(long bytes, int times) {
        bytesSinceCut.set(0);
        cutsLeft.set(times);
        cutEveryBytes = bytes;
    }

    void stopCutting() {
        cutEveryBytes = Long.MAX_VALUE;
        cutsLeft.set(0);
    }

    int cutsDone() {
        return cutsDone.get();
    }

    private void pump(Socket from, Socket to, boolean clientToBroker) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                out.write(buffer, 0, n);
                out.flush();
                if (clientToBroker && bytesSinceCut.addAndGet(n) >= cutEveryBytes && cutsLeft.getAndDecrement() > 0) {
                    bytesSinceCut.set(0);
                    cutsDone.incrementAndGet();
                    closeAllConnections();
                }
            }
        } catch (IOException e) {
            // the other side went away, or we cut the connection
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }
}
