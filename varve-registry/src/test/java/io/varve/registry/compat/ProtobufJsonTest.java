package io.varve.registry.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import org.junit.jupiter.api.Test;

class ProtobufJsonTest {
    private static final ProtoFileElement FILE = ProtoParser.Companion.parse(
            Location.get("x.proto"),
            "syntax = \"proto3\";\n"
                    + "message Person { string name = 1; sint32 delta = 2; repeated int32 scores = 3; Address home = 4;"
                    + " bool active = 5; double ratio = 6; bytes raw = 7; }\n"
                    + "message Address { string city = 1; }\n");

    private static String json(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return ProtobufJson.toJson(FILE, b, 0, b.length);
    }

    @Test
    void fieldsComeOutByNameWithTheirTypesValuesNestedMessagesAndPackedRepeats() {
        // index list [0]; name "al"; delta -2 (zig-zag 3); scores packed [1, 2]; home {city "X"}; active; raw 0xff
        assertThat(json(0, 0x0a, 2, 'a', 'l', 0x10, 3, 0x1a, 2, 1, 2, 0x22, 3, 0x0a, 1, 'X', 0x28, 1, 0x3a, 1, 0xff))
                .isEqualTo("{\"name\":\"al\",\"delta\":-2,\"scores\":[1,2],\"home\":{\"city\":\"X\"},\"active\":true,"
                        + "\"raw\":\"/w==\"}");
    }

    @Test
    void aDoubleAndTheSecondMessageByItsIndex() {
        // 1.5 as a little-endian double: 0x3FF8000000000000
        assertThat(json(0, 0x31, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f)).isEqualTo("{\"ratio\":1.5}");
        assertThat(json(0x02, 0x02, 0x0a, 1, 'Y')).isEqualTo("{\"city\":\"Y\"}");
    }

    @Test
    void whatIsNotDataOfTheSchemaGivesNull() {
        assertThat(json(0, 0x0a, 9, 'a')).isNull();
        assertThat(json(0x02, 0x10)).isNull();
    }
}
