package io.varve.it;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A loopback TCP proxy in front of a broker that reads the Kafka frames passing through and records, for every
 * Fetch, its session id and epoch and the sizes on the wire of the request and of its response (frame included).
 * Advertise its port ({@code advertised.listeners}) so that clients reach the broker only through it.
 */
public final class FetchFrameMeter extends LoopbackProxy {
    private static final short FETCH = 1;
    private static final short FIRST_FLEXIBLE_FETCH_VERSION = 12;
    private static final short FIRST_VERSION_WITHOUT_REPLICA_ID = 15;

    /** One Fetch and its answer. */
    public record Exchange(
            short version,
            int sessionId,
            int sessionEpoch,
            int requestBytes,
            int responseBytes,
            int responseSessionId,
            short responseError) {

        /** True for an incremental request of a live session (KIP-227: epoch above 0). */
        public boolean incremental() {
            return sessionEpoch > 0;
        }
    }

    private record Pending(short version, int sessionId, int sessionEpoch, int requestBytes) {}

    private final ConcurrentLinkedQueue<Exchange> exchanges = new ConcurrentLinkedQueue<>();

    public FetchFrameMeter() throws IOException {
        super("fetch-frame-meter");
    }

    /** Every Fetch answered so far, in the order answered. */
    public List<Exchange> exchanges() {
        return new ArrayList<>(exchanges);
    }

    public void clear() {
        exchanges.clear();
    }

    @Override
    protected void forward(Socket client, Socket upstream) {
        Map<Integer, Pending> fetches = new ConcurrentHashMap<>(); // by correlation id
        run(() -> pump(client, upstream, frame -> onRequest(frame, fetches)));
        run(() -> pump(upstream, client, frame -> onResponse(frame, fetches)));
    }

    private interface FrameListener {
        void onFrame(ByteBuffer frame);
    }

    /** Forwards whole frames (size prefix and body), showing each body to {@code listener} first. */
    private void pump(Socket from, Socket to, FrameListener listener) {
        try (DataInputStream in = new DataInputStream(from.getInputStream());
                OutputStream out = to.getOutputStream()) {
            while (true) {
                int size;
                try {
                    size = in.readInt();
                } catch (EOFException e) {
                    return;
                }
                byte[] frame = new byte[4 + size];
                ByteBuffer.wrap(frame).putInt(size);
                in.readFully(frame, 4, size);
                listener.onFrame(ByteBuffer.wrap(frame, 4, size).slice());
                out.write(frame);
                out.flush();
            }
        } catch (IOException e) {
            // the other side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void onRequest(ByteBuffer body, Map<Integer, Pending> fetches) {
        short apiKey = body.getShort();
        short version = body.getShort();
        int correlationId = body.getInt();
        if (apiKey != FETCH) {
            return;
        }
        short clientIdLength = body.getShort();
        if (clientIdLength > 0) {
            body.position(body.position() + clientIdLength);
        }
        if (version >= FIRST_FLEXIBLE_FETCH_VERSION) {
            skipTaggedFields(body);
        }
        if (version < FIRST_VERSION_WITHOUT_REPLICA_ID) {
            body.getInt(); // replica id
        }
        body.position(body.position() + 4 + 4 + 4 + 1); // max wait, min bytes, max bytes, isolation level
        int sessionId = body.getInt();
        int sessionEpoch = body.getInt();
        fetches.put(correlationId, new Pending(version, sessionId, sessionEpoch, 4 + body.limit()));
    }

    private void onResponse(ByteBuffer body, Map<Integer, Pending> fetches) {
        int correlationId = body.getInt();
        Pending request = fetches.remove(correlationId);
        if (request == null) {
            return;
        }
        if (request.version() >= FIRST_FLEXIBLE_FETCH_VERSION) {
            skipTaggedFields(body);
        }
        body.getInt(); // throttle time
        short error = body.getShort();
        int sessionId = body.getInt();
        exchanges.add(new Exchange(
                request.version(),
                request.sessionId(),
                request.sessionEpoch(),
                request.requestBytes(),
                4 + body.limit(),
                sessionId,
                error));
    }

    private static void skipTaggedFields(ByteBuffer body) {
        int count = readVarint(body);
        for (int i = 0; i < count; i++) {
            readVarint(body); // tag
            int size = readVarint(body);
            body.position(body.position() + size);
        }
    }

    private static int readVarint(ByteBuffer body) {
        int value = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            byte b = body.get();
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IllegalStateException("varint longer than 5 bytes");
    }
}
