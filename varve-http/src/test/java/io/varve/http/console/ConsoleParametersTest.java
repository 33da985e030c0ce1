package io.varve.http.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.http.view.OffsetReset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** How the console reads the parameters people type, and what it says about a bad one. */
class ConsoleParametersTest {
    @Test
    void aTimestampIsMillisecondsAnInstantOrADateAndTimeInUtc() {
        assertThat(MessageBrowser.timestamp("1700000000000")).isEqualTo(1_700_000_000_000L);
        assertThat(MessageBrowser.timestamp("2023-11-14T22:13:20Z")).isEqualTo(1_700_000_000_000L);
        assertThat(MessageBrowser.timestamp("2023-11-14T22:13:20")).isEqualTo(1_700_000_000_000L);
        assertThatThrownBy(() -> MessageBrowser.timestamp("noon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a timestamp");
        assertThatThrownBy(() -> MessageBrowser.timestamp("")).hasMessageContaining("A timestamp is required");
    }

    @Test
    void aResetTargetIsEarliestLatestAnOffsetOrATime() {
        assertThat(OffsetResetPage.target("earliest", "")).isEqualTo(new OffsetReset(OffsetReset.To.EARLIEST, 0));
        assertThat(OffsetResetPage.target("latest", "")).isEqualTo(new OffsetReset(OffsetReset.To.LATEST, 0));
        assertThat(OffsetResetPage.target("offset", "42")).isEqualTo(new OffsetReset(OffsetReset.To.OFFSET, 42));
        assertThat(OffsetResetPage.target("timestamp", "1700000000000"))
                .isEqualTo(new OffsetReset(OffsetReset.To.TIMESTAMP, 1_700_000_000_000L));
        assertThatThrownBy(() -> OffsetResetPage.target("offset", "-1")).hasMessageContaining("from 0 up");
        assertThatThrownBy(() -> OffsetResetPage.target("tomorrow", "")).hasMessageContaining("to must be");
    }

    @Test
    void aLongValueIsCutWithAMarkerAndBinaryIsShownAsHex() {
        String shown = Payloads.html("y".repeat(10_000).getBytes(StandardCharsets.UTF_8));
        assertThat(shown).contains("truncated: 2,048 of 10,000 bytes shown");
        assertThat(shown.length()).isLessThan(3000);
        assertThat(Payloads.html(new byte[] {0, 1, (byte) 0xff})).contains("00 01 ff");
        assertThat(Payloads.html(null)).contains("null");
        assertThat(Payloads.html("<b>".getBytes(StandardCharsets.UTF_8))).contains("&lt;b&gt;");
    }

    @Test
    void aCutInsideAMultiByteCharacterStillShowsText() {
        byte[] text = ("a".repeat(Payloads.MAX_SHOWN_BYTES - 1) + "é tail").getBytes(StandardCharsets.UTF_8);
        assertThat(Payloads.html(text)).startsWith("<pre>a").contains("truncated");
    }

    @Test
    void theRegistrysWireHeaderNamesTheSchemaId() {
        assertThat(Payloads.schemaId(new byte[] {0, 0, 0, 1, 2, 9})).isEqualTo(258);
        assertThat(Payloads.schemaId(new byte[] {1, 0, 0, 1, 2, 9})).isEqualTo(-1);
        assertThat(Payloads.schemaId(new byte[] {0, 0})).isEqualTo(-1);
    }
}
