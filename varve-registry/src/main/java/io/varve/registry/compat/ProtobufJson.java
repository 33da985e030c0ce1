package io.varve.registry.compat;

import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Confluent Protobuf payload (the message-index list, then the message) as JSON text for people to read, with the
 * field names of its schema: numbers as numbers, strings as strings, bytes in base64, enums by number, nested messages
 * of the same file as objects (others, and maps, in base64), repeated fields as arrays. Fields the schema does not
 * declare are left out. Nesting is bounded ({@link #MAX_DEPTH}).
 */
public final class ProtobufJson {
    static final int MAX_DEPTH = 32;
    private static final int MAX_INDEXES = 64;

    private ProtobufJson() {}

    /** The JSON text, or null when the payload is not data of the schema. */
    public static String toJson(ProtoFileElement file, byte[] b, int offset, int length) {
        int[] pos = {offset};
        int end = offset + length;
        try {
            int count = zigzag(varint(b, pos, end));
            if (count < 0 || count > MAX_INDEXES) {
                return null;
            }
            List<TypeElement> types = file.getTypes();
            MessageElement message = nthMessage(types, 0);
            for (int i = 0; i < count; i++) {
                message = nthMessage(types, zigzag(varint(b, pos, end)));
                if (message == null) {
                    return null;
                }
                types = message.getNestedTypes();
            }
            if (message == null) {
                return null;
            }
            StringBuilder out = new StringBuilder();
            message(file, message, b, pos, end, 0, out);
            return out.toString();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static void message(
            ProtoFileElement file, MessageElement m, byte[] b, int[] pos, int end, int depth, StringBuilder out) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("nested too deep");
        }
        Map<Integer, FieldElement> fields = new HashMap<>();
        m.getFields().forEach(f -> fields.put(f.getTag(), f));
        m.getOneOfs().forEach(o -> o.getFields().forEach(f -> fields.put(f.getTag(), f)));
        Map<String, List<String>> values = new LinkedHashMap<>();
        Map<String, Boolean> repeated = new HashMap<>();
        while (pos[0] < end) {
            long key = varint(b, pos, end);
            int tag = (int) (key >>> 3);
            int wireType = (int) (key & 7);
            FieldElement f = fields.get(tag);
            if (f == null) {
                skip(b, pos, end, wireType);
                continue;
            }
            boolean isRepeated = f.getLabel() == Field.Label.REPEATED;
            repeated.put(f.getName(), isRepeated);
            List<String> list = values.computeIfAbsent(f.getName(), k -> new ArrayList<>());
            if (!isRepeated) {
                list.clear();
            }
            String t = f.getType();
            if (wireType == 2
                    && isRepeated
                    && ProtobufCompatibility.isScalar(t)
                    && !t.equals("string")
                    && !t.equals("bytes")) {
                int len = length(b, pos, end);
                int packedEnd = pos[0] + len;
                while (pos[0] < packedEnd) {
                    list.add(scalar(t, packedWireType(t), b, pos, packedEnd));
                }
                continue;
            }
            if (wireType == 2 && !ProtobufCompatibility.isScalar(t)) {
                int len = length(b, pos, end);
                MessageElement nested = t.startsWith("map<") ? null : resolve(file, m, t);
                if (nested == null) {
                    list.add(quote(
                            Base64.getEncoder().encodeToString(java.util.Arrays.copyOfRange(b, pos[0], pos[0] + len))));
                    pos[0] += len;
                } else {
                    StringBuilder inner = new StringBuilder();
                    int[] innerPos = {pos[0]};
                    message(file, nested, b, innerPos, pos[0] + len, depth + 1, inner);
                    pos[0] += len;
                    list.add(inner.toString());
                }
                continue;
            }
            list.add(scalar(t, wireType, b, pos, end));
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, List<String>> e : values.entrySet()) {
            out.append(first ? "" : ",").append(quote(e.getKey())).append(':');
            first = false;
            if (repeated.get(e.getKey())) {
                out.append('[').append(String.join(",", e.getValue())).append(']');
            } else {
                out.append(e.getValue().isEmpty() ? "null" : e.getValue().get(0));
            }
        }
        out.append('}');
    }

    private static int packedWireType(String t) {
        return switch (t) {
            case "fixed64", "sfixed64", "double" -> 1;
            case "fixed32", "sfixed32", "float" -> 5;
            default -> 0;
        };
    }

    /** One value of scalar type {@code t} (or an enum, by number) as JSON. */
    private static String scalar(String t, int wireType, byte[] b, int[] pos, int end) {
        switch (wireType) {
            case 0 -> {
                long v = varint(b, pos, end);
                return switch (t) {
                    case "int32" -> Integer.toString((int) v);
                    case "uint32" -> Long.toString(v & 0xffffffffL);
                    case "uint64" -> Long.toUnsignedString(v);
                    case "sint32" -> Integer.toString(zigzag(v));
                    case "sint64" -> Long.toString((v >>> 1) ^ -(v & 1));
                    case "bool" -> Boolean.toString(v != 0);
                    default -> Long.toString(v);
                };
            }
            case 1 -> {
                long v = little(b, pos, end, 8);
                return t.equals("double")
                        ? number(Double.longBitsToDouble(v))
                        : t.equals("fixed64") ? Long.toUnsignedString(v) : Long.toString(v);
            }
            case 5 -> {
                int v = (int) little(b, pos, end, 4);
                return t.equals("float")
                        ? number(Float.intBitsToFloat(v))
                        : t.equals("fixed32") ? Long.toString(v & 0xffffffffL) : Integer.toString(v);
            }
            case 2 -> {
                int len = length(b, pos, end);
                byte[] bytes = java.util.Arrays.copyOfRange(b, pos[0], pos[0] + len);
                pos[0] += len;
                return t.equals("string")
                        ? quote(new String(bytes, java.nio.charset.StandardCharsets.UTF_8))
                        : quote(Base64.getEncoder().encodeToString(bytes));
            }
            default -> throw new IllegalArgumentException("unsupported wire type " + wireType);
        }
    }

    private static String number(double d) {
        return Double.isFinite(d)
                ? (d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d))
                : quote(Double.toString(d));
    }

    /** The message a field's type names: its simple name, looked for among the nested types, then the whole file. */
    private static MessageElement resolve(ProtoFileElement file, MessageElement scope, String type) {
        String simple = type.substring(type.lastIndexOf('.') + 1);
        for (TypeElement t : scope.getNestedTypes()) {
            if (t instanceof MessageElement m && m.getName().equals(simple)) {
                return m;
            }
        }
        Deque<TypeElement> queue = new ArrayDeque<>(file.getTypes());
        while (!queue.isEmpty()) {
            TypeElement t = queue.poll();
            if (t instanceof MessageElement m && m.getName().equals(simple)) {
                return m;
            }
            queue.addAll(t.getNestedTypes());
        }
        return null;
    }

    private static MessageElement nthMessage(List<TypeElement> types, int index) {
        int seen = 0;
        for (TypeElement t : types) {
            if (t instanceof MessageElement m && seen++ == index) {
                return m;
            }
        }
        return null;
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static int length(byte[] b, int[] pos, int end) {
        long len = varint(b, pos, end);
        if (len < 0 || len > end - pos[0]) {
            throw new IllegalArgumentException("a length-delimited field runs past the value's end");
        }
        return (int) len;
    }

    private static long little(byte[] b, int[] pos, int end, int n) {
        if (pos[0] + n > end) {
            throw new IllegalArgumentException("a field runs past the value's end");
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            v |= (b[pos[0] + i] & 0xffL) << (8 * i);
        }
        pos[0] += n;
        return v;
    }

    private static void skip(byte[] b, int[] pos, int end, int wireType) {
        switch (wireType) {
            case 0 -> varint(b, pos, end);
            case 1 -> little(b, pos, end, 8);
            case 2 -> pos[0] += length(b, pos, end);
            case 5 -> little(b, pos, end, 4);
            default -> throw new IllegalArgumentException("unsupported wire type " + wireType);
        }
    }

    private static long varint(byte[] b, int[] pos, int end) {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos[0] >= end) {
                throw new IllegalArgumentException("a varint runs past the value's end");
            }
            byte x = b[pos[0]++];
            value |= (long) (x & 0x7f) << shift;
            if ((x & 0x80) == 0) {
                return value;
            }
        }
        throw new IllegalArgumentException("a varint is longer than 10 bytes");
    }

    private static int zigzag(long v) {
        return (int) ((v >>> 1) ^ -(v & 1));
    }
}
