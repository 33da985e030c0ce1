package io.varve.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class HttpEndpointTest {
    @Test
    void parsesHostsPortsIpv6AndHttpsAndSkipsEmptyEntries() {
        assertThat(HttpEndpoint.parseList(
                        "k", List.of("http://localhost:9644", " HTTP://[::1]:0 ", "", "https://0.0.0.0:9645")))
                .containsExactly(
                        new HttpEndpoint("localhost", 9644),
                        new HttpEndpoint("::1", 0),
                        new HttpEndpoint("0.0.0.0", 9645, true));
        assertThat(new HttpEndpoint("0.0.0.0", 9645, true)).hasToString("https://0.0.0.0:9645");
        assertThat(HttpEndpoint.parseList("k", List.of())).isEmpty();
    }

    @Test
    void refusesWhatIsNotHttpHostPortInOneSentenceNamingTheKey() {
        assertThatThrownBy(() -> HttpEndpoint.parseList("varve.http.listeners", List.of("localhost:9644")))
                .hasMessage("Invalid entry 'localhost:9644' in varve.http.listeners: expected http://host:port or"
                        + " https://host:port.");
        assertThatThrownBy(() -> HttpEndpoint.parseList("varve.http.listeners", List.of("PLAINTEXT://h:1")))
                .hasMessageContaining("the scheme must be http or https");
        assertThatThrownBy(() -> HttpEndpoint.parseList("varve.http.listeners", List.of("http://h:70000")))
                .hasMessageContaining("Invalid port 70000");
    }

    @Test
    void onlyLoopbackHostsCountAsLoopbackOnly() {
        assertThat(new HttpEndpoint("127.0.0.1", 1).loopbackOnly()).isTrue();
        assertThat(new HttpEndpoint("localhost", 1).loopbackOnly()).isTrue();
        assertThat(new HttpEndpoint("::1", 1).loopbackOnly()).isTrue();
        assertThat(new HttpEndpoint("", 1).loopbackOnly()).as("every interface").isFalse();
        assertThat(new HttpEndpoint("0.0.0.0", 1).loopbackOnly()).isFalse();
    }
}
