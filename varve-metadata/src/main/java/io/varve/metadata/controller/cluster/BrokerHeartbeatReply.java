package io.varve.metadata.controller.cluster;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answer to a BrokerHeartbeat, as the broker sees its state once the reply's records are
 * committed.
 *
 * @param isCaughtUp     the broker has read the metadata log far enough to be unfenced
 * @param isFenced       the broker is fenced
 * @param shouldShutDown the broker may shut down now: it leads no partition any more
 */
public record BrokerHeartbeatReply(
        Errors error, String message, boolean isCaughtUp, boolean isFenced, boolean shouldShutDown) {

    public BrokerHeartbeatReply {
        Objects.requireNonNull(error, "error");
    }

    static BrokerHeartbeatReply failure(Errors error, String message) {
        return new BrokerHeartbeatReply(error, message, false, true, false);
    }
}
