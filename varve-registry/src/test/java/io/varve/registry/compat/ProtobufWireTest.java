package io.varve.registry.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import org.junit.jupiter.api.Test;

class ProtobufWireTest {
    private static final ProtoFileElement FILE = ProtoParser.Companion.parse(
            Location.get("x.proto"),
            "syntax = \"proto3\";\nmessage A { string name = 1; int32 n = 2; }\nmessage B { fixed64 f = 1; }\n");

    private static String check(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return ProtobufWire.invalidPayload(FILE, b, 0, b.length);
    }

    @Test
    void theFirstMessageIsALoneZeroIndexAndItsFieldsMustCarryTheirWireTypes() {
        assertThat(check(0, 0x0a, 1, 'x', 0x10, 5)).isNull();
        assertThat(check(0, 0x08, 1)).contains("wire type 0"); // name as a varint
        assertThat(check(0, 0x0a, 5, 'x')).isNotNull(); // runs past the end
    }

    @Test
    void anExplicitIndexListSelectsTheMessage() {
        // one index (zig-zag 1 = 0x02), message 1 = B; field 1 fixed64
        assertThat(check(0x02, 0x02, 0x09, 1, 2, 3, 4, 5, 6, 7, 8)).isNull();
        assertThat(check(0x02, 0x08)).contains("message index 4");
    }
}
