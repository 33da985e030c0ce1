package io.varve.http.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonPrettyTest {
    @Test
    void anObjectIsIndentedTwoSpacesPerLevel() {
        assertThat(JsonPretty.format("{\"a\":1,\"b\":[true,null,\"x\"],\"c\":{}}"))
                .isEqualTo("{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null,\n    \"x\"\n  ],\n  \"c\": {}\n}");
    }

    @Test
    void stringsKeepTheirEscapedQuotesAndBrackets() {
        assertThat(JsonPretty.format("[\"a\\\"}]\"]")).isEqualTo("[\n  \"a\\\"}]\"\n]");
    }

    @Test
    void textThatIsNotOneJsonDocumentIsNotFormatted() {
        assertThat(JsonPretty.format("plain text")).isNull();
        assertThat(JsonPretty.format("{\"a\":}")).isNull();
        assertThat(JsonPretty.format("{\"a\":1}{")).isNull();
        assertThat(JsonPretty.format("[1,]")).isNull();
        assertThat(JsonPretty.format("{\"a\" 1}")).isNull();
        assertThat(JsonPretty.format("[1 2]")).isNull();
        assertThat(JsonPretty.format("42")).isNull();
        assertThat(JsonPretty.format("[".repeat(JsonPretty.MAX_DEPTH + 1))).isNull();
    }
}
