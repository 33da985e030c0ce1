package io.varve.http.view;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether the node should get traffic: registered with the controller (and not fenced), caught up with the metadata
 * log, and leading no partition whose log is unusable.
 */
public record Readiness(boolean registered, boolean caughtUpWithMetadata, int offlineLedPartitions) {

    public boolean ready() {
        return registered && caughtUpWithMetadata && offlineLedPartitions == 0;
    }

    /** Why the node is not ready, one phrase per reason; empty when it is. */
    public List<String> reasons() {
        List<String> out = new ArrayList<>();
        if (!registered) {
            out.add("not registered with the controller");
        }
        if (!caughtUpWithMetadata) {
            out.add("not caught up with the metadata log");
        }
        if (offlineLedPartitions > 0) {
            out.add(offlineLedPartitions + " led partitions are offline");
        }
        return out;
    }
}
