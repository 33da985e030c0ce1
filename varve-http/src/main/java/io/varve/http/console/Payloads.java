package io.varve.http.console;

import static io.varve.http.console.Html.esc;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * How the message browser shows a key, a value or a header: UTF-8 text (JSON indented), else hex; a value with the
 * Confluent wire header (magic byte 0, a 4-byte schema id) says its schema id. Anything longer than {@link
 * #MAX_SHOWN_BYTES} is cut there with a visible marker, so one huge message cannot make the page huge.
 */
final class Payloads {
    static final int MAX_SHOWN_BYTES = 2048;

    private Payloads() {}

    /** The schema id of a value in the Confluent wire format, or -1. */
    static int schemaId(byte[] value) {
        if (value == null || value.length < 5 || value[0] != 0) {
            return -1;
        }
        return ByteBuffer.wrap(value, 1, 4).getInt();
    }

    static String html(byte[] bytes) {
        if (bytes == null) {
            return "<i>null</i>";
        }
        int shown = Math.min(bytes.length, MAX_SHOWN_BYTES);
        String marker = shown < bytes.length
                ? "<div class=marker>… truncated: " + String.format(Locale.ROOT, "%,d", shown) + " of "
                        + String.format(Locale.ROOT, "%,d", bytes.length) + " bytes shown</div>"
                : "";
        String text = utf8(bytes, shown);
        if (text == null) {
            return "<pre class=hex>" + hex(bytes, shown) + "</pre>" + marker;
        }
        String json = shown == bytes.length ? JsonPretty.format(text) : null;
        if (json != null) {
            return "<pre class=json>" + esc(json) + "</pre>";
        }
        return "<pre>" + esc(text) + "</pre>" + marker;
    }

    /** The first {@code length} bytes as UTF-8 text, or null when they are not text (a cut character is dropped). */
    static String utf8(byte[] bytes, int length) {
        try {
            CharBuffer chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, cutAtCharacter(bytes, length)));
            for (int i = 0; i < chars.length(); i++) {
                char c = chars.charAt(i);
                if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
                    return null;
                }
            }
            return chars.toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** {@code length}, moved back to the start of a UTF-8 sequence it would cut. */
    private static int cutAtCharacter(byte[] bytes, int length) {
        if (length == bytes.length) {
            return length;
        }
        int i = length;
        while (i > 0 && i > length - 4 && (bytes[i] & 0xC0) == 0x80) {
            i--;
        }
        return i;
    }

    static String hex(byte[] bytes, int length) {
        StringBuilder b = new StringBuilder(length * 3);
        for (int i = 0; i < length; i++) {
            b.append(i == 0 ? "" : i % 32 == 0 ? "\n" : " ")
                    .append(Character.forDigit((bytes[i] >> 4) & 0xF, 16))
                    .append(Character.forDigit(bytes[i] & 0xF, 16));
        }
        return b.toString();
    }

    /** Whether {@code bytes} as text contains {@code needle} (case-insensitive); an empty needle matches all. */
    static boolean contains(byte[] bytes, String needle) {
        if (needle.isEmpty()) {
            return true;
        }
        if (bytes == null) {
            return false;
        }
        return new String(bytes, StandardCharsets.UTF_8)
                .toLowerCase(Locale.ROOT)
                .contains(needle.toLowerCase(Locale.ROOT));
    }
}
