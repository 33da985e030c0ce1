package io.varve.it;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * A bare Kafka-protocol connection for tests that must send what a well-behaved client never would
 * (corrupt batches, repeated sequences, odd versions, garbage frames).
 */
public final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    public RawClient(int port) throws IOException {
        this("127.0.0.1", port, Duration.ofSeconds(15));
    }

    /** A connection to {@code host:port} whose connect and every read give up after {@code timeout}. */
    public RawClient(String host, int port, Duration timeout) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
        socket.setSoTimeout((int) timeout.toMillis());
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** Speaks on {@code connected}, a socket the caller connected (from a chosen local address …) and closes. */
    public RawClient(Socket connected) throws IOException {
        socket = connected;
        out = new DataOutputStream(connected.getOutputStream());
        in = new DataInputStream(connected.getInputStream());
    }

    /** Sends one request and returns the parsed response of the same API and version. */
    public <T extends ApiMessage> T send(ApiMessage request, short version) throws IOException {
        int id = sendOnly(request, version);
        return receive(ApiKeys.forId(request.apiKey()), version, id);
    }

    /** Reads the next response frame, which must answer request {@code correlationId}, as {@code apiKey} at {@code version}. */
    @SuppressWarnings("unchecked")
    public <T extends ApiMessage> T receive(ApiKeys apiKey, short version, int correlationId) throws IOException {
        ByteBuffer frame = readFrame();
        short responseHeaderVersion = apiKey.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData(new ByteBufferAccessor(frame), responseHeaderVersion);
        if (header.correlationId() != correlationId) {
            throw new IOException(
                    "correlation id " + header.correlationId() + " does not match request " + correlationId);
        }
        ApiMessage response = apiKey.messageType.newResponse();
        response.read(new ByteBufferAccessor(frame), version);
        return (T) response;
    }

    /** Sends a request without reading a response; returns its correlation id. */
    public int sendOnly(ApiMessage request, short version) throws IOException {
        ApiKeys apiKey = ApiKeys.forId(request.apiKey());
        int id = ++correlationId;
        short headerVersion = apiKey.requestHeaderVersion(version);
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(apiKey.id)
                .setRequestApiVersion(version)
                .setCorrelationId(id)
                .setClientId("varve-raw-test");
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + request.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
        header.write(accessor, cache, headerVersion);
        request.write(accessor, cache, version);
        writeFrame(buffer.array());
        return id;
    }

    public void writeFrame(byte[] payload) throws IOException {
        out.writeInt(payload.length);
        out.write(payload);
        out.flush();
    }

    public void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    public ByteBuffer readFrame() throws IOException {
        int size = in.readInt();
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        return ByteBuffer.wrap(bytes);
    }

    /** Correlation id of a response frame read with {@link #readFrame()} (the first field of every response header). */
    public static int correlationIdOf(ByteBuffer responseFrame) {
        return responseFrame.getInt(0);
    }

    /**
     * True when the broker closes the connection (end of stream or reset) within {@code wait}; false when the
     * connection is still open after it. Consumes a byte if the broker sends one, so call it with nothing pending.
     */
    public boolean isClosedByPeer(Duration wait) {
        try {
            socket.setSoTimeout((int) Math.max(1, wait.toMillis()));
            try {
                return in.read() == -1;
            } finally {
                socket.setSoTimeout(15_000);
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
