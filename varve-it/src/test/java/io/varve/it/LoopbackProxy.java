package io.varve.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The plumbing of a loopback TCP proxy in front of a broker: it accepts on an ephemeral loopback port, opens a
 * connection to the broker for each client and hands both sockets to {@link #forward}, which says what passes between
 * them (bytes as they come, whole Kafka frames …). Advertise its port ({@code advertised.listeners}) so that clients
 * reach the broker only through it.
 */
public abstract class LoopbackProxy implements AutoCloseable {
    private final ServerSocket server;
    private final ExecutorService threads;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    protected LoopbackProxy(String threadName) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Starts forwarding every accepted connection to 127.0.0.1:{@code targetPort}. */
    public void start(int targetPort) {
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
                forward(client, upstream);
            }
        });
    }

    /** Starts what passes between a new client and its broker connection, on threads of {@link #run(Runnable)}. */
    protected abstract void forward(Socket client, Socket upstream);

    /** Runs {@code task} on one of the proxy's threads (they end with it). */
    protected final void run(Runnable task) {
        threads.execute(task);
    }

    /** Closes every connection open now, client and broker sides: what was in flight is lost. */
    public void closeAllConnections() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    protected final void closeQuietly(Socket s) {
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
