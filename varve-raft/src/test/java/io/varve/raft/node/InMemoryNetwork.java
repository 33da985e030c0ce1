package io.varve.raft.node;

import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Transports that hand each message straight to the destination's inbound callback on the sender's
 * thread (which only enqueues). A replica can be cut off: messages from or to it are dropped.
 */
final class InMemoryNetwork {
    private final Map<Integer, Predicate<InboundMessage>> inbound = new ConcurrentHashMap<>();
    private final Set<Integer> isolated = ConcurrentHashMap.newKeySet();

    RaftTransport transport(int nodeId) {
        return new RaftTransport() {
            @Override
            public void start(Predicate<InboundMessage> handler) {
                inbound.put(nodeId, handler);
            }

            @Override
            public void send(OutboundMessage message) {
                Predicate<InboundMessage> to = inbound.get(message.destinationId());
                if (to != null && !isolated.contains(nodeId) && !isolated.contains(message.destinationId())) {
                    to.test(new InboundMessage(nodeId, message.correlationId(), message.message()));
                }
            }

            @Override
            public void close() {
                inbound.remove(nodeId);
            }
        };
    }

    void isolate(int nodeId) {
        isolated.add(nodeId);
    }

    void heal(int nodeId) {
        isolated.remove(nodeId);
    }
}
