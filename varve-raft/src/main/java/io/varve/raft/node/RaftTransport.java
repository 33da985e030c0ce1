package io.varve.raft.node;

import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import java.util.function.Predicate;

/**
 * How a {@link RaftRuntime} reaches the other replicas. A transport carries the core's messages as they
 * are; requests and responses are paired by the correlation id in the envelopes, which the transport
 * keeps (a response is sent to the replica the request came from, with the request's correlation id).
 *
 * <p>Contract: {@link #send} never blocks and may drop a message (no connection, a full buffer): Raft
 * retries everything it needs. {@code inbound} may be called from any thread, concurrently; it only
 * enqueues, and returns false when the runtime refused the message (its queue is full, or it closed), so a
 * transport that holds a connection open for the answer can let it go.
 */
public interface RaftTransport {

    /** Starts delivering messages addressed to this replica to {@code inbound}; called once, before any send. */
    void start(Predicate<InboundMessage> inbound);

    /** Queues {@code message} for {@code message.destinationId()}; never blocks. */
    void send(OutboundMessage message);

    /** Stops sending and delivering; idempotent. */
    void close();

    /** The transport of a quorum of one: nobody to talk to, so nothing is sent or received. */
    static RaftTransport none() {
        return new RaftTransport() {
            @Override
            public void start(Predicate<InboundMessage> inbound) {}

            @Override
            public void send(OutboundMessage message) {}

            @Override
            public void close() {}
        };
    }
}
