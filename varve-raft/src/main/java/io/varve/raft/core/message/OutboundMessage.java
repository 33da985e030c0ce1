package io.varve.raft.core.message;

import java.util.Objects;

/**
 * A message this node wants sent. A request carries a fresh correlation id; a response carries the id
 * of the request it answers, which the transport must hand back in the {@link InboundMessage}.
 */
public record OutboundMessage(int destinationId, long correlationId, RaftMessage message) {
    public OutboundMessage {
        Objects.requireNonNull(message, "message");
        if (destinationId == RaftMessage.NO_ID) {
            throw new IllegalArgumentException("destinationId names no replica nor bootstrap server");
        }
    }
}
