package io.varve.it.txn;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A loopback proxy in front of one broker that reads the Kafka frames of every connection and, with a seeded random
 * source, does to Produce and EndTxn requests what a bad network and impatient clients do (Jepsen's 2024 schedule):
 *
 * <ul>
 *   <li>delays a request a few milliseconds;
 *   <li>drops its response (the connection is cut when the response arrives: the broker did the work, the client
 *       retries);
 *   <li>duplicates it at once (a copy under a correlation id of the proxy, whose answer the client never sees);
 *   <li>replays it late, from a connection of its own: a committing EndTxn of one transaction is sent again while the
 *       same transactional id's next transaction has written its first record (held until the answer is in, before
 *       the client sees its produce succeed), and a Produce of a transaction again once that transaction has ended.
 * </ul>
 *
 * The error codes the broker gave the late EndTxn copies are counted ({@link #lateEndTxnAnswers()}).
 */
final class FaultProxy implements AutoCloseable {
    /** Correlation ids of the proxy's own copies start here, far above what a client reaches in a test. */
    private static final int OWN_CORRELATION_BASE = 0x40000000;

    private final ServerSocket server;
    private final Random random;
    private final double dropResponseChance;
    private final double duplicateChance;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fault-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ownCorrelation = new AtomicInteger(OWN_CORRELATION_BASE);
    /** Per transactional id: the last committing EndTxn, waiting to be replayed during the next transaction. */
    private final Map<String, byte[]> lateEndTxn = new ConcurrentHashMap<>();
    /** Per transactional id: a Produce of the current transaction, replayed once that transaction ended. */
    private final Map<String, byte[]> lateProduce = new ConcurrentHashMap<>();

    private final Map<Errors, AtomicInteger> lateEndTxnAnswers = new ConcurrentHashMap<>();
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicInteger duplicated = new AtomicInteger();
    private final AtomicInteger lateProduces = new AtomicInteger();
    private volatile int targetPort;
    private volatile boolean closed;

    FaultProxy(long seed, double dropResponseChance, double duplicateChance) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.random = new Random(seed);
        this.dropResponseChance = dropResponseChance;
        this.duplicateChance = duplicateChance;
    }

    int port() {
        return server.getLocalPort();
    }

    void start(int brokerPort) {
        targetPort = brokerPort;
        threads.execute(() -> {
            while (!closed) {
                try {
                    Socket client = server.accept();
                    Socket upstream = connect();
                    Connection c = new Connection(client, upstream);
                    threads.execute(c::pumpRequests);
                    threads.execute(c::pumpResponses);
                } catch (IOException e) {
                    // closed, or the broker refused: the client retries
                }
            }
        });
    }

    Map<Errors, Integer> lateEndTxnAnswers() {
        Map<Errors, Integer> out = new java.util.TreeMap<>();
        lateEndTxnAnswers.forEach((e, n) -> out.put(e, n.get()));
        return out;
    }

    String summary() {
        return "dropped responses " + dropped.get() + ", duplicated requests " + duplicated.get() + ", late produces "
                + lateProduces.get() + ", late EndTxn answers " + lateEndTxnAnswers();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
        s.setTcpNoDelay(true);
        sockets.add(s);
        return s;
    }

    private synchronized double roll() {
        return random.nextDouble();
    }

    private synchronized int delayMs() {
        return random.nextInt(8);
    }

    /** What the proxy remembers of a request until its response passes. */
    private record InFlight(ApiKeys api, short version, String transactionalId, boolean dropResponse) {}

    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private final Map<Integer, InFlight> inFlight = new ConcurrentHashMap<>();

        Connection(Socket client, Socket upstream) throws IOException {
            this.client = client;
            this.upstream = upstream;
            client.setTcpNoDelay(true);
            sockets.add(client);
        }

        void pumpRequests() {
            try (DataInputStream in = new DataInputStream(client.getInputStream())) {
                OutputStream out = upstream.getOutputStream();
                while (true) {
                    byte[] frame = readFrame(in);
                    ByteBuffer body = ByteBuffer.wrap(frame);
                    RequestHeader header = RequestHeader.parse(body);
                    ApiKeys api = header.apiKey();
                    String transactionalId = null;
                    boolean faulty = api == ApiKeys.PRODUCE || api == ApiKeys.END_TXN;
                    if (api == ApiKeys.PRODUCE) {
                        ProduceRequestData produce =
                                new ProduceRequestData(new ByteBufferAccessor(body.slice()), header.apiVersion());
                        transactionalId = produce.transactionalId();
                        if (transactionalId != null) {
                            lateProduce.putIfAbsent(transactionalId, frame.clone());
                        }
                    } else if (api == ApiKeys.END_TXN) {
                        EndTxnRequestData end =
                                new EndTxnRequestData(new ByteBufferAccessor(body.slice()), header.apiVersion());
                        transactionalId = end.transactionalId();
                        if (end.committed()) {
                            lateEndTxn.put(transactionalId, frame.clone());
                        }
                    }
                    boolean drop = faulty && roll() < dropResponseChance;
                    inFlight.put(header.correlationId(), new InFlight(api, header.apiVersion(), transactionalId, drop));
                    if (faulty) {
                        Thread.sleep(delayMs());
                    }
                    synchronized (out) {
                        writeFrame(out, frame);
                        if (faulty && roll() < duplicateChance) {
                            duplicated.incrementAndGet();
                            writeFrame(out, withOwnCorrelation(frame));
                        }
                    }
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                closeBoth();
            }
        }

        void pumpResponses() {
            try (DataInputStream in = new DataInputStream(upstream.getInputStream())) {
                OutputStream out = client.getOutputStream();
                while (true) {
                    byte[] frame = readFrame(in);
                    int correlationId = ByteBuffer.wrap(frame).getInt(0);
                    if (correlationId >= OWN_CORRELATION_BASE) {
                        continue; // the answer to a duplicate: the client never asked
                    }
                    InFlight request = inFlight.remove(correlationId);
                    if (request != null && request.transactionalId() != null) {
                        if (request.api() == ApiKeys.PRODUCE) {
                            // the transaction's first record is in: replay the previous transaction's commit now
                            byte[] end = lateEndTxn.remove(request.transactionalId());
                            if (end != null) {
                                replayEndTxn(end);
                            }
                        } else if (request.api() == ApiKeys.END_TXN) {
                            byte[] produce = lateProduce.remove(request.transactionalId());
                            if (produce != null) {
                                lateProduces.incrementAndGet();
                                replayAndForget(produce);
                            }
                        }
                    }
                    if (request != null && request.dropResponse()) {
                        dropped.incrementAndGet();
                        closeBoth();
                        return;
                    }
                    writeFrame(out, frame);
                }
            } catch (IOException | RuntimeException e) {
                closeBoth();
            }
        }

        void closeBoth() {
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }

    /** Sends a copy of an EndTxn on a connection of the proxy's and waits for (and counts) its answer. */
    private void replayEndTxn(byte[] frame) throws IOException {
        RequestHeader header = RequestHeader.parse(ByteBuffer.wrap(frame));
        try (Socket s = connect()) {
            s.setSoTimeout(15_000);
            writeFrame(s.getOutputStream(), withOwnCorrelation(frame));
            ByteBuffer response = ByteBuffer.wrap(readFrame(new DataInputStream(s.getInputStream())));
            ResponseHeader.parse(response, ApiKeys.END_TXN.responseHeaderVersion(header.apiVersion()));
            EndTxnResponseData data = new EndTxnResponseData(new ByteBufferAccessor(response), header.apiVersion());
            lateEndTxnAnswers
                    .computeIfAbsent(Errors.forCode(data.errorCode()), e -> new AtomicInteger())
                    .incrementAndGet();
        } finally {
            sockets.removeIf(Socket::isClosed);
        }
    }

    /** Sends a copy of a request from a connection of the proxy's, a little later, ignoring the answer. */
    private void replayAndForget(byte[] frame) {
        threads.execute(() -> {
            try (Socket s = connect()) {
                s.setSoTimeout(15_000);
                writeFrame(s.getOutputStream(), withOwnCorrelation(frame));
                readFrame(new DataInputStream(s.getInputStream()));
            } catch (IOException e) {
                // the broker went away; nothing to learn
            }
        });
    }

    private byte[] withOwnCorrelation(byte[] frame) {
        byte[] copy = frame.clone();
        ByteBuffer.wrap(copy).putInt(4, ownCorrelation.incrementAndGet());
        return copy;
    }

    private static byte[] readFrame(DataInputStream in) throws IOException {
        int size = in.readInt();
        if (size < 0 || size > 64 << 20) {
            throw new EOFException("bad frame size " + size);
        }
        byte[] frame = new byte[size];
        in.readFully(frame);
        return frame;
    }

    private static void writeFrame(OutputStream out, byte[] frame) throws IOException {
        byte[] size = ByteBuffer.allocate(4).putInt(frame.length).array();
        out.write(size);
        out.write(frame);
        out.flush();
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
        sockets.forEach(this::closeQuietly);
        threads.shutdownNow();
    }
}
