package io.varve.raft.core.message;

import java.util.Objects;

/** A message that reached this node: who sent it, and the correlation id that pairs a response with its request. */
public record InboundMessage(int sourceId, long correlationId, RaftMessage message) {
    public InboundMessage {
        Objects.requireNonNull(message, "message");
    }
}
