package io.varve.broker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.telemetry.ClientMetricsSubscriptions.Client;
import io.varve.broker.telemetry.ClientMetricsSubscriptions.Subscription;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.record.ConfigResourceType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientMetricsSubscriptionsTest {
    private static ConfigResource subscription(String name) {
        return new ConfigResource(ConfigResourceType.CLIENT_METRICS, name);
    }

    private static Client client(String clientId) {
        return new Client("inst", clientId, "apache-kafka-java", "4.4.0", "127.0.0.1", "50000");
    }

    @Test
    void aClientWithNoMatchingSubscriptionIsAskedForNothingAtTheDefaultInterval() {
        Subscription s = ClientMetricsSubscriptions.forClient(
                Map.of(subscription("s"), Map.of("metrics", "a.", "match", "client_id=other")), client("me"));
        assertThat(s.requestedMetrics()).isEmpty();
        assertThat(s.pushIntervalMs()).isEqualTo(300_000);
    }

    @Test
    void matchingSubscriptionsUniteTheirPrefixesAndTakeTheShortestInterval() {
        Map<ConfigResource, Map<String, String>> configs = Map.of(
                subscription("one"),
                Map.of("metrics", "b.,a.", "interval.ms", "5000"),
                subscription("two"),
                Map.of("metrics", "c.", "interval.ms", "1000", "match", "client_id=m.*,client_source_address=127\\..*"),
                subscription("three"),
                Map.of("metrics", "z.", "match", "client_id=nope"),
                new ConfigResource(ConfigResourceType.TOPIC, "t"),
                Map.of("metrics", "topic-configs-are-not-subscriptions"));
        Subscription s = ClientMetricsSubscriptions.forClient(configs, client("me"));
        assertThat(s.requestedMetrics()).containsExactly("a.", "b.", "c.");
        assertThat(s.pushIntervalMs()).isEqualTo(1000);
    }

    @Test
    void aStarAsksForEveryMetricAsOneEmptyPrefix() {
        Subscription s = ClientMetricsSubscriptions.forClient(
                Map.of(subscription("all"), Map.of("metrics", "*,a.")), client("me"));
        assertThat(s.requestedMetrics()).containsExactly("");
    }

    @Test
    void theSubscriptionIdChangesWithWhatIsAskedForAndStaysOtherwise() {
        Map<ConfigResource, Map<String, String>> before = Map.of(subscription("s"), Map.of("metrics", "a."));
        Map<ConfigResource, Map<String, String>> after =
                Map.of(subscription("s"), Map.of("metrics", "a.", "interval.ms", "1000"));
        int id = ClientMetricsSubscriptions.forClient(before, client("me")).subscriptionId();
        assertThat(ClientMetricsSubscriptions.forClient(before, client("me")).subscriptionId())
                .isEqualTo(id);
        assertThat(ClientMetricsSubscriptions.forClient(after, client("me")).subscriptionId())
                .isNotEqualTo(id);
    }
}
