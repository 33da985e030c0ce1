package io.varve.http.metrics;

import io.varve.http.view.BrokerView;
import io.varve.http.view.ClusterView;
import io.varve.http.view.CoordinatorView;
import io.varve.http.view.GroupLag;
import io.varve.http.view.PartitionView;
import io.varve.http.view.Readiness;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** A node the tests set up by hand: its partitions and lag are whatever the test put there last. */
final class FakeBrokerView implements BrokerView {
    volatile List<PartitionView> partitions = List.of();
    volatile List<GroupLag> lag = List.of();
    int partitionReads;

    static PartitionView partition(String topic, int partition, long logEndOffset, long sizeBytes) {
        return new PartitionView(topic, partition, true, 1, 1, 1, sizeBytes, 0, logEndOffset, logEndOffset, 1, 0, 0, 0);
    }

    @Override
    public int nodeId() {
        return 1;
    }

    @Override
    public String clusterId() {
        return "test-cluster";
    }

    @Override
    public List<PartitionView> partitions() {
        partitionReads++;
        return partitions;
    }

    @Override
    public ClusterView cluster() {
        return new ClusterView(true, 1, partitions.size(), 0, 1, 0, 10);
    }

    @Override
    public CompletableFuture<List<GroupLag>> consumerLag() {
        return CompletableFuture.completedFuture(lag);
    }

    @Override
    public CoordinatorView coordinators() {
        return CoordinatorView.NONE;
    }

    @Override
    public Map<String, Integer> purgatorySizes() {
        return Map.of("Fetch", 0, "Produce", 0);
    }

    @Override
    public Map<String, Long> tieredCounters() {
        return Map.of();
    }

    @Override
    public Readiness readiness() {
        return new Readiness(true, true, 0);
    }
}
