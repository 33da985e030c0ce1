package io.varve.raft.core;

import io.varve.raft.core.message.OutboundMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Delivers what fixtures sent to each other, instantly and in order, until nothing is left (bounded). */
final class Wire {
    private static final int MAX_ROUNDS = 1000;

    private final Map<Integer, CoreFixture> byId = new HashMap<>();
    private final Map<Integer, Integer> delivered = new HashMap<>();

    Wire(List<CoreFixture> fixtures) {
        for (CoreFixture fixture : fixtures) {
            byId.put(fixture.config.nodeId(), fixture);
            delivered.put(fixture.config.nodeId(), fixture.sent.size());
        }
    }

    /** Drops everything sent so far without delivering it. */
    void discard() {
        byId.forEach((id, fixture) -> delivered.put(id, fixture.sent.size()));
    }

    void pump() {
        for (int round = 0; round < MAX_ROUNDS; round++) {
            boolean moved = false;
            for (CoreFixture from : byId.values()) {
                int id = from.config.nodeId();
                while (delivered.get(id) < from.sent.size()) {
                    OutboundMessage message = from.sent.get(delivered.get(id));
                    delivered.put(id, delivered.get(id) + 1);
                    CoreFixture to = byId.get(message.destinationId());
                    if (to != null) {
                        to.nowMs = Math.max(to.nowMs, from.nowMs);
                        to.deliver(id, message.correlationId(), message.message());
                        moved = true;
                    }
                }
            }
            if (!moved) {
                return;
            }
        }
        throw new AssertionError("messages still flowing after " + MAX_ROUNDS + " rounds");
    }

    /** Advances every fixture's clock by {@code ms}, polls each, and pumps. */
    void tick(long ms) {
        for (CoreFixture fixture : byId.values()) {
            fixture.advance(ms);
        }
        pump();
    }
}
