package io.varve.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class HttpEndpointTest {
    @Test
    void parsesHostsPortsAndIpv6AndSkipsEmptyEntries() {
        assertThat(HttpEndpoint.parseList("k", List.of("http://localhost:9644", " HTTP://[::1]:0 ", "")))
                .containsExactly(new HttpEndpoint("localhost", 9644), new HttpEndpoint("::1", 0));
        assertThat(HttpEndpoint.parseList("k", List.of())).isEmpty();
    }

    @Test
    void refusesWhatIsNotHttpHostPortInOneSentenceNamingTheKey() {
        assertThatThrownBy(() -> HttpEndpoint.parseList("varve.http.listeners", List.of("localhost:9644")))
                .hasMessage("Invalid entry 'localhost:9644' in varve.http.listeners: expected http://host:port.");
        assertThatThrownBy(() -> HttpEndpoint.parseList("varve.http.listeners", List.of("https://h:1")))
                .hasMessageContaining("varve.http.listeners")
                .hasMessageContaining("https");
        assertThatThrownBy(() -> HttpEndpoint.parseList("varve.http.listeners", List.of("PLAINTEXT://h:1")))
                .hasMessageContaining("the scheme must be http");
        assertThatThrownBy(() -> HttpEndpoint.parseList("varve.http.listeners", List.of("http://h:70000")))
                .hasMessageContaining("Invalid port 70000");
    }
}
