package io.varve.raft.node;

import io.varve.raft.core.Role;

/** What a {@link RaftRuntime} last published about its replica: readable from any thread. */
public record RaftStatus(int nodeId, Role role, int epoch, int leaderId, long highWatermark) {}
