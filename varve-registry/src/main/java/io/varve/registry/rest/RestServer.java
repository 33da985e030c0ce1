package io.varve.registry.rest;

import com.sun.net.httpserver.HttpServer;
import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's HTTP listener ({@code varve.schema.registry.listeners}, e.g. {@code http://localhost:8081}) on the
 * JDK's HTTP server, with a bounded pool: requests beyond its queue get 503 rather than piling up.
 */
public final class RestServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RestServer.class);
    public static final String LISTENERS_KEY = "varve.schema.registry.listeners";
    private static final int THREADS = 4;
    private static final int QUEUE = 1024;
    static final long READY_WAIT_MS = 30_000;

    static {
        // The JDK's server writes a response's headers and body in two segments: with Nagle's algorithm on, the body
        // waits for the client's delayed ACK of the headers (~40 ms a request, 20 lookups/s over loopback). Read
        // once, when the JDK's server configuration loads: set before this class creates a server.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final HttpServer server;
    private final ThreadPoolExecutor pool;

    private RestServer(HttpServer server, ThreadPoolExecutor pool) {
        this.server = server;
        this.pool = pool;
    }

    /** The host and port of a listener such as {@code http://localhost:8081}, or a one-sentence refusal. */
    public static InetSocketAddress parseListener(String listener) {
        URI uri;
        try {
            uri = URI.create(listener.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    LISTENERS_KEY + ": '" + listener + "' is not a URL like http://localhost:8081");
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                || uri.getHost() == null
                || uri.getPort() < 0) {
            throw new IllegalArgumentException(
                    LISTENERS_KEY + ": '" + listener + "' must be an http:// or https:// URL with a host and a port");
        }
        return new InetSocketAddress(uri.getHost(), uri.getPort());
    }

    public static RestServer start(String listener, SchemaRegistry registry) {
        return start(listener, registry, java.util.concurrent.CompletableFuture.completedFuture(null));
    }

    public static RestServer start(
            String listener, SchemaRegistry registry, java.util.concurrent.CompletableFuture<?> ready) {
        return start(listener, registry, ready, WriteRoute.LOCAL);
    }

    /**
     * Binds {@code listener} now (a listener that cannot be bound is refused in one sentence naming the key) and
     * serves requests once {@code ready} completes (the store is replayed); until then requests wait up to
     * {@link #READY_WAIT_MS}, then get 50002.
     */
    public static RestServer start(
            String listener,
            SchemaRegistry registry,
            java.util.concurrent.CompletableFuture<?> ready,
            WriteRoute route) {
        return start(listener, registry, ready, route, Security.NONE);
    }

    /**
     * TLS and access control of the listener: the server's TLS context and client authentication for https, the
     * context forwarded writes are sent with, and who may do what.
     */
    public record Security(
            javax.net.ssl.SSLContext serverTls,
            ClientAuth clientAuth,
            javax.net.ssl.SSLContext clientTls,
            RegistryAccess access) {
        public static final Security NONE = new Security(null, ClientAuth.NONE, null, RegistryAccess.OPEN);
    }

    /** Whether an https listener asks clients for a certificate, and whether it needs one. */
    public enum ClientAuth {
        NONE,
        REQUESTED,
        REQUIRED
    }

    public static boolean isHttps(String listener) {
        return listener.trim().toLowerCase(java.util.Locale.ROOT).startsWith("https:");
    }

    public static RestServer start(
            String listener,
            SchemaRegistry registry,
            java.util.concurrent.CompletableFuture<?> ready,
            WriteRoute route,
            Security security) {
        InetSocketAddress address = parseListener(listener);
        boolean https = isHttps(listener);
        if (https && security.serverTls() == null) {
            throw new IllegalArgumentException(
                    LISTENERS_KEY + ": '" + listener + "' is https, but no TLS settings were given for it");
        }
        HttpServer server;
        try {
            if (https) {
                com.sun.net.httpserver.HttpsServer tls = com.sun.net.httpserver.HttpsServer.create(address, 128);
                tls.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(security.serverTls()) {
                    @Override
                    public void configure(com.sun.net.httpserver.HttpsParameters params) {
                        javax.net.ssl.SSLParameters p = getSSLContext().getDefaultSSLParameters();
                        p.setNeedClientAuth(security.clientAuth() == ClientAuth.REQUIRED);
                        if (security.clientAuth() == ClientAuth.REQUESTED) {
                            p.setWantClientAuth(true);
                        }
                        params.setSSLParameters(p);
                    }
                });
                server = tls;
            } else {
                server = HttpServer.create(address, 128);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    LISTENERS_KEY + ": cannot listen on " + listener + " (" + e.getMessage() + ")", e);
        }
        AtomicInteger ids = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                THREADS,
                THREADS,
                60,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE),
                r -> {
                    Thread t = new Thread(r, "varve-registry-http-" + ids.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                },
                (task, executor) -> {
                    throw new java.util.concurrent.RejectedExecutionException("registry request queue full");
                });
        Routes routes = new Routes(registry);
        WriteForwarder forwarder =
                new WriteForwarder(registry, route, WriteForwarder.defaultClient(security.clientTls()));
        server.createContext("/", exchange -> {
            try {
                // Before anything else, so that a request without valid credentials learns nothing, not even 50002.
                Guard guard = Guard.of(security.access(), exchange);
                awaitReady(ready);
                if (WriteForwarder.isWrite(exchange.getRequestMethod(), HttpExchangeIo.segments(exchange))
                        && forwarder.forwardIfRemote(exchange)) {
                    return;
                }
                routes.handle(exchange, guard);
            } catch (RegistryException e) {
                HttpExchangeIo.error(exchange, e);
            } catch (RuntimeException e) {
                log.warn("Registry request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                HttpExchangeIo.error(
                        exchange,
                        new RegistryException(500, 50001, "Error in the backend data store: " + e.getMessage()));
            }
        });
        server.setExecutor(pool);
        server.start();
        log.info(
                "Schema registry listening on {}://{}:{}",
                https ? "https" : "http",
                address.getHostString(),
                server.getAddress().getPort());
        return new RestServer(server, pool);
    }

    private static void awaitReady(java.util.concurrent.CompletableFuture<?> ready) {
        if (ready.isDone() && !ready.isCompletedExceptionally()) {
            return;
        }
        try {
            ready.get(READY_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new RegistryException(500, 50002, "The schema registry is still loading its store");
        } catch (java.util.concurrent.ExecutionException e) {
            throw RegistryException.storeError("The schema registry could not load its store: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RegistryException.storeError("Interrupted");
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
