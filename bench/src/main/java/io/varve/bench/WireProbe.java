package io.varve.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A minimal Kafka wire client for readiness and start-up timing: ApiVersions v0 and Metadata v4 over a
 * plain socket, with no retry or back-off of its own, so the time it reports is the broker's alone.
 * Written from the protocol guide's field lists; it reads only what it needs.
 */
public final class WireProbe {

    /** What a Metadata answer says about the cluster and every topic in it. */
    public record MetadataSummary(int brokers, int topics, int partitions, int partitionsWithLeader) {
    }

    private static final short API_VERSIONS = 18;
    private static final short METADATA = 3;
    private static final int CONNECT_TIMEOUT_MILLIS = 500;
    private static final int READ_TIMEOUT_MILLIS = 10_000;

    private final String host;
    private final int port;
    private int correlationId;

    public WireProbe(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** True when the broker answers ApiVersions without an error; false when it refuses or drops the connection. */
    public boolean apiVersionsAnswered() {
        try {
            ByteBuffer body = exchange(API_VERSIONS, (short) 0, new byte[0]);
            return body.getShort() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** One Metadata v4 request for all topics; throws when the broker cannot be reached or answers garbage. */
    public MetadataSummary metadata() throws IOException {
        // v4 body: topics = null (all topics), allow_auto_topic_creation = false.
        byte[] request = ByteBuffer.allocate(5).putInt(-1).put((byte) 0).array();
        ByteBuffer in = exchange(METADATA, (short) 4, request);
        in.getInt();  // throttle_time_ms
        int brokers = in.getInt();
        for (int i = 0; i < brokers; i++) {
            in.getInt();  // node_id
            skipString(in);
            in.getInt();  // port
            skipString(in);  // rack (nullable)
        }
        skipString(in);  // cluster_id (nullable)
        in.getInt();  // controller_id
        int topics = in.getInt();
        int partitions = 0;
        int withLeader = 0;
        for (int t = 0; t < topics; t++) {
            in.getShort();  // error_code
            skipString(in);
            in.get();  // is_internal
            int count = in.getInt();
            for (int p = 0; p < count; p++) {
                short error = in.getShort();
                in.getInt();  // partition_index
                int leader = in.getInt();
                skipInt32Array(in);  // replica_nodes
                skipInt32Array(in);  // isr_nodes
                partitions++;
                if (error == 0 && leader >= 0) {
                    withLeader++;
                }
            }
        }
        return new MetadataSummary(brokers, topics, partitions, withLeader);
    }

    /** Metadata, or null when the broker is not answering yet. */
    public MetadataSummary metadataOrNull() {
        try {
            return metadata();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private ByteBuffer exchange(short apiKey, short apiVersion, byte[] body) throws IOException {
        int correlation = ++correlationId;
        byte[] clientId = "varve-bench".getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            // Request header v1: api_key, api_version, correlation_id, client_id.
            out.writeInt(2 + 2 + 4 + 2 + clientId.length + body.length);
            out.writeShort(apiKey);
            out.writeShort(apiVersion);
            out.writeInt(correlation);
            out.writeShort(clientId.length);
            out.write(clientId);
            out.write(body);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            if (size < 4 || size > 64 * 1024 * 1024) {
                throw new IOException("implausible response size " + size);
            }
            byte[] response = new byte[size];
            in.readFully(response);
            ByteBuffer buffer = ByteBuffer.wrap(response);
            int answeredCorrelation = buffer.getInt();  // response header v0
            if (answeredCorrelation != correlation) {
                throw new IOException("correlation id " + answeredCorrelation + " answers " + correlation);
            }
            return buffer;
        }
    }

    private static void skipString(ByteBuffer in) {
        short length = in.getShort();
        if (length > 0) {
            in.position(in.position() + length);
        }
    }

    private static void skipInt32Array(ByteBuffer in) {
        int count = in.getInt();
        if (count > 0) {
            in.position(in.position() + 4 * count);
        }
    }
}
