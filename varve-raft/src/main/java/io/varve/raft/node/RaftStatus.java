package io.varve.raft.node;

import io.varve.raft.core.Role;
import io.varve.raft.core.message.VoterSet;

/**
 * What a {@link RaftRuntime} last published about its replica: readable from any thread. {@code voters} is the voter
 * set in effect (with directory ids and endpoints on a dynamic quorum): where the transport finds the voters.
 */
public record RaftStatus(int nodeId, Role role, int epoch, int leaderId, long highWatermark, VoterSet voters) {}
