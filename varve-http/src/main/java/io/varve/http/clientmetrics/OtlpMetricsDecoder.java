package io.varve.http.clientmetrics;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes the part of an OTLP {@code MetricsData} protobuf message (the payload of KIP-714's PushTelemetry) that
 * Prometheus can show: every gauge and sum data point, with its metric name, attributes and value. Histograms and
 * summaries are skipped (Kafka's clients push gauges and sums). Written against the protobuf wire format (varints,
 * length-delimited fields, fixed 64-bit values) and opentelemetry-proto's field numbers; unknown fields are skipped,
 * as protobuf readers must. Pure: bytes in, points out.
 */
public final class OtlpMetricsDecoder {
    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LENGTH_DELIMITED = 2;
    private static final int FIXED32 = 5;
    /** Nesting is fixed by the schema; this bounds a hostile payload's attribute values. */
    private static final int MAX_POINTS = 100_000;

    private OtlpMetricsDecoder() {}

    /** One data point. {@code monotonic} for a monotonic sum (a counter). */
    public record Point(String metric, Map<String, String> attributes, double value, boolean monotonic) {}

    /** Thrown for bytes that are not a well-formed message. */
    public static final class MalformedException extends RuntimeException {
        MalformedException(String message) {
            super(message);
        }
    }

    public static List<Point> decode(ByteBuffer payload) {
        List<Point> out = new ArrayList<>();
        Reader r = new Reader(payload.slice().order(ByteOrder.LITTLE_ENDIAN));
        while (r.more()) {
            int tag = r.tag();
            if (field(tag) == 1 && type(tag) == LENGTH_DELIMITED) { // resource_metrics
                resourceMetrics(r.message(), out);
            } else {
                r.skip(tag);
            }
        }
        return out;
    }

    private static void resourceMetrics(Reader r, List<Point> out) {
        while (r.more()) {
            int tag = r.tag();
            if (field(tag) == 2 && type(tag) == LENGTH_DELIMITED) { // scope_metrics
                Reader scope = r.message();
                while (scope.more()) {
                    int t = scope.tag();
                    if (field(t) == 2 && type(t) == LENGTH_DELIMITED) { // metrics
                        metric(scope.message(), out);
                    } else {
                        scope.skip(t);
                    }
                }
            } else {
                r.skip(tag);
            }
        }
    }

    private static void metric(Reader r, List<Point> out) {
        String name = null;
        List<Reader> points = new ArrayList<>();
        boolean monotonic = false;
        while (r.more()) {
            int tag = r.tag();
            int f = field(tag);
            if (f == 1 && type(tag) == LENGTH_DELIMITED) {
                name = r.string();
            } else if ((f == 5 || f == 7) && type(tag) == LENGTH_DELIMITED) { // gauge, sum
                Reader data = r.message();
                while (data.more()) {
                    int t = data.tag();
                    if (field(t) == 1 && type(t) == LENGTH_DELIMITED) {
                        points.add(data.message());
                    } else if (f == 7 && field(t) == 3 && type(t) == VARINT) {
                        monotonic = data.varint() != 0;
                    } else {
                        data.skip(t);
                    }
                }
            } else {
                r.skip(tag);
            }
        }
        if (name == null) {
            return;
        }
        for (Reader p : points) {
            if (out.size() >= MAX_POINTS) {
                throw new MalformedException("more than " + MAX_POINTS + " data points");
            }
            numberDataPoint(name, p, monotonic, out);
        }
    }

    private static void numberDataPoint(String name, Reader r, boolean monotonic, List<Point> out) {
        Map<String, String> attributes = new LinkedHashMap<>();
        double value = Double.NaN;
        while (r.more()) {
            int tag = r.tag();
            int f = field(tag);
            if (f == 7 && type(tag) == LENGTH_DELIMITED) {
                keyValue(r.message(), attributes);
            } else if (f == 4 && type(tag) == FIXED64) {
                value = Double.longBitsToDouble(r.fixed64());
            } else if (f == 6 && type(tag) == FIXED64) {
                value = r.fixed64();
            } else {
                r.skip(tag);
            }
        }
        out.add(new Point(name, attributes, value, monotonic));
    }

    private static void keyValue(Reader r, Map<String, String> into) {
        String key = null;
        String value = "";
        while (r.more()) {
            int tag = r.tag();
            if (field(tag) == 1 && type(tag) == LENGTH_DELIMITED) {
                key = r.string();
            } else if (field(tag) == 2 && type(tag) == LENGTH_DELIMITED) {
                value = anyValue(r.message());
            } else {
                r.skip(tag);
            }
        }
        if (key != null) {
            into.put(key, value);
        }
    }

    /** AnyValue as text: string, bool, int and double; other kinds (arrays, maps, bytes) as empty. */
    private static String anyValue(Reader r) {
        String value = "";
        while (r.more()) {
            int tag = r.tag();
            switch (field(tag)) {
                case 1 -> value = type(tag) == LENGTH_DELIMITED ? r.string() : skipped(r, tag);
                case 2 -> value = type(tag) == VARINT ? Boolean.toString(r.varint() != 0) : skipped(r, tag);
                case 3 -> value = type(tag) == VARINT ? Long.toString(r.varint()) : skipped(r, tag);
                case 4 ->
                    value = type(tag) == FIXED64
                            ? Double.toString(Double.longBitsToDouble(r.fixed64()))
                            : skipped(r, tag);
                default -> r.skip(tag);
            }
        }
        return value;
    }

    private static String skipped(Reader r, int tag) {
        r.skip(tag);
        return "";
    }

    private static int field(int tag) {
        return tag >>> 3;
    }

    private static int type(int tag) {
        return tag & 7;
    }

    /** A bounded view of one message's bytes. */
    private static final class Reader {
        private final ByteBuffer buf;

        Reader(ByteBuffer buf) {
            this.buf = buf;
        }

        boolean more() {
            return buf.hasRemaining();
        }

        int tag() {
            long tag = varint();
            if (tag <= 0 || tag > Integer.MAX_VALUE) {
                throw new MalformedException("invalid field tag " + tag);
            }
            return (int) tag;
        }

        long varint() {
            long result = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (!buf.hasRemaining()) {
                    throw new MalformedException("truncated varint");
                }
                byte b = buf.get();
                result |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return result;
                }
            }
            throw new MalformedException("varint longer than 10 bytes");
        }

        long fixed64() {
            if (buf.remaining() < 8) {
                throw new MalformedException("truncated fixed64");
            }
            return buf.getLong();
        }

        Reader message() {
            long length = varint();
            if (length < 0 || length > buf.remaining()) {
                throw new MalformedException("field length " + length + " past the end of its message");
            }
            ByteBuffer slice = buf.slice().order(ByteOrder.LITTLE_ENDIAN);
            slice.limit((int) length);
            buf.position(buf.position() + (int) length);
            return new Reader(slice);
        }

        String string() {
            Reader m = message();
            byte[] bytes = new byte[m.buf.remaining()];
            m.buf.get(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }

        void skip(int tag) {
            switch (type(tag)) {
                case VARINT -> varint();
                case FIXED64 -> fixed64();
                case LENGTH_DELIMITED -> message();
                case FIXED32 -> {
                    if (buf.remaining() < 4) {
                        throw new MalformedException("truncated fixed32");
                    }
                    buf.position(buf.position() + 4);
                }
                default -> throw new MalformedException("unsupported wire type " + type(tag));
            }
        }
    }
}
