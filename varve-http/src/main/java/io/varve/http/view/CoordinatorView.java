package io.varve.http.view;

import java.util.Map;

/**
 * The state of the coordinators on this node.
 *
 * @param groupsByState      groups by state name (Stable, Empty, PreparingRebalance…) over the shards this node leads
 * @param transactionsByState transactional ids by state name (Ongoing, PrepareCommit, CompleteCommit…)
 */
public record CoordinatorView(
        Map<String, Integer> groupsByState,
        int groupShards,
        Map<String, Integer> transactionsByState,
        int transactionShards) {
    public static final CoordinatorView NONE = new CoordinatorView(Map.of(), 0, Map.of(), 0);
}
