package io.varve.coordinator.group.classic;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A member of a classic group. Mutable: owned by its group, on the shard thread. */
public final class ClassicMember {
    private static final byte[] NO_ASSIGNMENT = new byte[0];

    final String memberId;
    final String groupInstanceId;
    String clientId;
    String clientHost;
    int rebalanceTimeoutMs;
    int sessionTimeoutMs;
    String protocolType;
    List<ClassicProtocol> protocols;
    byte[] assignment = NO_ASSIGNMENT;
    /** Set while the member waits for the rebalance to complete; its JoinGroup response goes here. */
    CompletableFuture<ClassicApi.JoinResponse> awaitingJoin;
    /** Set while the member waits for the leader's assignment. */
    CompletableFuture<ClassicApi.SyncResponse> awaitingSync;
    /** Joined during the current rebalance (drives the initial-delay extension). */
    boolean isNew;

    boolean supportsSkipAssignment;

    ClassicMember(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            String protocolType,
            List<ClassicProtocol> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = List.copyOf(protocols);
    }

    public String memberId() {
        return memberId;
    }

    public String groupInstanceId() {
        return groupInstanceId;
    }

    public String clientId() {
        return clientId;
    }

    public String clientHost() {
        return clientHost;
    }

    public byte[] assignment() {
        return assignment;
    }

    public int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    public int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    public List<ClassicProtocol> protocols() {
        return protocols;
    }

    public boolean isStatic() {
        return groupInstanceId != null;
    }

    public boolean isAwaitingJoin() {
        return awaitingJoin != null;
    }

    public boolean isAwaitingSync() {
        return awaitingSync != null;
    }

    /** The metadata this member sent for {@code protocol}, or null when it does not support it. */
    public byte[] metadata(String protocol) {
        for (ClassicProtocol p : protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return null;
    }

    boolean matches(List<ClassicProtocol> other) {
        return protocols.equals(other);
    }

    /** Copies this member's state under a new member id: a static member replaced by its restarted instance. */
    ClassicMember withMemberId(String newMemberId) {
        ClassicMember m = new ClassicMember(
                newMemberId,
                groupInstanceId,
                clientId,
                clientHost,
                rebalanceTimeoutMs,
                sessionTimeoutMs,
                protocolType,
                protocols);
        m.assignment = assignment;
        return m;
    }
}
