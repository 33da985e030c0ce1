package io.varve.metadata.controller.cluster;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/** The answer to a BrokerRegistration: the broker epoch to quote from now on, or an error (epoch -1). */
public record BrokerRegistrationReply(Errors error, String message, long brokerEpoch) {

    public BrokerRegistrationReply {
        Objects.requireNonNull(error, "error");
    }

    static BrokerRegistrationReply failure(Errors error, String message) {
        return new BrokerRegistrationReply(error, message, -1);
    }
}
