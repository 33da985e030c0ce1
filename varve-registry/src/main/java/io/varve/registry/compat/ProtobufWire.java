package io.varve.registry.compat;

import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Deep validation of a Confluent Protobuf payload: the message-index list (zig-zag varints; a lone 0 for the first
 * message), then the message in protobuf's wire format, each known field carrying the wire type its declaration
 * implies. Nested messages are checked for framing only.
 */
public final class ProtobufWire {
    private static final int MAX_INDEXES = 64;

    private ProtobufWire() {}

    public static String invalidPayload(ProtoFileElement file, byte[] b, int offset, int length) {
        int[] pos = {offset};
        int end = offset + length;
        try {
            int count = zigzag(readVarint(b, pos, end));
            List<TypeElement> types = file.getTypes();
            MessageElement message = null;
            if (count == 0) {
                message = firstMessage(types, 0);
            } else {
                if (count < 0 || count > MAX_INDEXES) {
                    return "The value's message-index list is malformed.";
                }
                for (int i = 0; i < count; i++) {
                    int index = zigzag(readVarint(b, pos, end));
                    message = firstMessage(types, index);
                    if (message == null) {
                        return "The value names message index " + index + ", which its schema does not have.";
                    }
                    types = message.getNestedTypes();
                }
            }
            if (message == null) {
                return "The value's schema has no message.";
            }
            Map<Integer, FieldElement> fields = new HashMap<>();
            message.getFields().forEach(f -> fields.put(f.getTag(), f));
            message.getOneOfs().forEach(o -> o.getFields().forEach(f -> fields.put(f.getTag(), f)));
            while (pos[0] < end) {
                long key = readVarint(b, pos, end);
                int tag = (int) (key >>> 3);
                int wireType = (int) (key & 7);
                if (tag <= 0) {
                    return "The value holds a field number " + tag + ".";
                }
                FieldElement declared = fields.get(tag);
                if (declared != null && !wireTypeFits(declared, wireType)) {
                    return "The value's field " + declared.getName() + " has wire type " + wireType + ".";
                }
                skip(b, pos, end, wireType);
            }
            return pos[0] == end ? null : "The value's last field runs past its end.";
        } catch (IllegalArgumentException e) {
            return "The value is not Protobuf data of its schema: " + e.getMessage();
        }
    }

    /** The message at position {@code index} among {@code types}, counting messages only. */
    private static MessageElement firstMessage(List<TypeElement> types, int index) {
        List<MessageElement> messages = new ArrayList<>();
        for (TypeElement t : types) {
            if (t instanceof MessageElement m) {
                messages.add(m);
            }
        }
        return index >= 0 && index < messages.size() ? messages.get(index) : null;
    }

    private static boolean wireTypeFits(FieldElement f, int wireType) {
        String t = f.getType();
        int expected =
                switch (t) {
                    case "int32", "uint32", "int64", "uint64", "sint32", "sint64", "bool" -> 0;
                    case "fixed64", "sfixed64", "double" -> 1;
                    case "fixed32", "sfixed32", "float" -> 5;
                    default -> ProtobufCompatibility.isScalar(t) ? 2 : -1;
                };
        if (expected == -1) {
            return wireType == 2 || wireType == 0; // a message (LEN) or an enum (VARINT)
        }
        return wireType == expected || (f.getLabel() == Field.Label.REPEATED && wireType == 2);
    }

    private static void skip(byte[] b, int[] pos, int end, int wireType) {
        switch (wireType) {
            case 0 -> readVarint(b, pos, end);
            case 1 -> advance(pos, 8, end);
            case 2 -> {
                long len = readVarint(b, pos, end);
                if (len < 0 || len > end - pos[0]) {
                    throw new IllegalArgumentException("a length-delimited field runs past the value's end");
                }
                advance(pos, (int) len, end);
            }
            case 5 -> advance(pos, 4, end);
            default -> throw new IllegalArgumentException("unsupported wire type " + wireType);
        }
    }

    private static void advance(int[] pos, int n, int end) {
        if (pos[0] + n > end) {
            throw new IllegalArgumentException("a field runs past the value's end");
        }
        pos[0] += n;
    }

    private static long readVarint(byte[] b, int[] pos, int end) {
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
