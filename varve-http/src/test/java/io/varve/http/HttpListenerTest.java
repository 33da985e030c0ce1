package io.varve.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.http.metrics.NodeMetrics;
import io.varve.http.view.Readiness;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HttpListenerTest {
    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> get(int port, String path, String method) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readyAnswers503WithTheReasonsUntilTheNodeIsReadyThen200() throws Exception {
        AtomicReference<Readiness> readiness = new AtomicReference<>(new Readiness(false, true, 2));
        try (HttpListener l =
                HttpListener.start(List.of(new HttpEndpoint("127.0.0.1", 0)), new NodeMetrics(), readiness::get)) {
            int port = l.boundPort(0);
            HttpResponse<String> notReady = get(port, "/health/ready", "GET");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body())
                    .contains("\"status\":\"DOWN\"")
                    .contains("not registered with the controller")
                    .contains("2 led partitions are offline");
            readiness.set(new Readiness(true, true, 0));
            HttpResponse<String> ready = get(port, "/health/ready", "GET");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).contains("\"status\":\"UP\"");
            assertThat(get(port, "/health/live", "GET").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void unknownPathsGet404AndOtherMethods405BothWithJsonBodies() throws Exception {
        try (HttpListener l = HttpListener.start(
                List.of(new HttpEndpoint("127.0.0.1", 0)), new NodeMetrics(), () -> new Readiness(true, true, 0))) {
            int port = l.boundPort(0);
            HttpResponse<String> missing = get(port, "/nope?x=1", "GET");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.headers().firstValue("content-type")).hasValue(io.varve.http.HttpResponse.JSON);
            assertThat(missing.body()).isEqualTo("{\"error_code\":404,\"message\":\"No such path: /nope\"}");
            HttpResponse<String> post = get(port, "/metrics", "POST");
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.body()).contains("\"error_code\":405");
        }
    }

    @Test
    void metricsWithoutAViewServeTheJvmAndProcessFamilies() throws Exception {
        try (HttpListener l = HttpListener.start(
                List.of(new HttpEndpoint("127.0.0.1", 0)), new NodeMetrics(), () -> new Readiness(true, true, 0))) {
            HttpResponse<String> r = get(l.boundPort(0), "/metrics", "GET");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type"))
                    .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain; version=0.0.4"));
            assertThat(r.body()).contains("jvm_memory_used_bytes").contains("process_cpu_seconds_total");
        }
    }

    @Test
    void anEndpointThatCannotBeBoundFailsNamingIt() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            HttpEndpoint endpoint = new HttpEndpoint("127.0.0.1", taken.getLocalPort());
            assertThatThrownBy(() -> HttpListener.start(
                            List.of(endpoint), new NodeMetrics(), () -> new Readiness(true, true, 0)))
                    .isInstanceOf(HttpServer.BindFailure.class)
                    .hasMessageStartingWith("cannot bind " + endpoint);
        }
    }
}
