/**
 * Server-side assignors of KIP-848 consumer groups: {@code uniform} (balanced and sticky) and {@code range}
 * (per-topic contiguous ranges). Pure functions from members, subscriptions and partition counts to a target
 * assignment.
 */
package io.varve.coordinator.group.assignor;
