package io.varve.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of a broker that can cut every connection after a number of client-to-broker
 * bytes: requests the broker has received lose their responses, so clients must retry them.
 * Advertise its port ({@code advertised.listeners}) so that clients reach the broker only through it.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "tcp-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong bytesSinceCut = new AtomicLong();
    private final AtomicInteger cutsLeft = new AtomicInteger();
    private final AtomicInteger cutsDone = new AtomicInteger();
    private volatile long cutEveryBytes = Long.MAX_VALUE;
    private volatile boolean closed;

    TcpProxy() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    int port() {
        return server.getLocalPort();
    }

    /** Starts forwarding every accepted connection to 127.0.0.1:{@code targetPort}. */
    void start(int targetPort) {
        threads.execute(() -> {
            while (!closed) {
                Socket client;
                try {
                    client = server.accept();
                } catch (IOException e) {
                    continue; // closed: the loop ends; otherwise keep accepting
                }
                Socket upstream = new Socket();
                try {
                    upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                    client.setTcpNoDelay(true);
                    upstream.setTcpNoDelay(true);
                } catch (IOException e) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                sockets.add(client);
                sockets.add(upstream);
                threads.execute(() -> pump(client, upstream, true));
                threads.execute(() -> pump(upstream, client, false));
            }
        });
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

    void closeAllConnections() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    private void closeQuietly(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        closeAllConnections();
        threads.shutdownNow();
    }
}
