package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TopicTrafficTest {
    @Test
    void aDeletedTopicIsForgottenButATopicFirstSeenAfterTheReadKeepsItsCounts() {
        TopicTraffic traffic = new TopicTraffic();
        traffic.topic("deleted").produced(10, 1);
        traffic.topic("kept").produced(10, 1);
        long readAt = traffic.nextGeneration(); // then the topics held are read: "kept" only
        traffic.topic("created-since").produced(100, 5);
        traffic.retain(Set.of("kept"), readAt);
        List<String> names = new ArrayList<>();
        traffic.topics().forEach(t -> names.add(t.name));
        assertThat(names).containsExactlyInAnyOrder("kept", "created-since");
        assertThat(traffic.byteTotals().get("created-since")[0]).isEqualTo(100);

        long next = traffic.nextGeneration(); // a read that still does not show it: it was deleted since
        traffic.retain(Set.of("kept"), next);
        names.clear();
        traffic.topics().forEach(t -> names.add(t.name));
        assertThat(names).containsExactly("kept");
    }
}
