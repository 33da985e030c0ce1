package io.varve.metadata.controller;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/** A reply that is only an error code and its message (null on success). */
public record ErrorReply(Errors error, String message) {

    public static final ErrorReply NONE = new ErrorReply(Errors.NONE, null);

    public ErrorReply {
        Objects.requireNonNull(error, "error");
    }

    public static ErrorReply of(Errors error, String message) {
        return new ErrorReply(error, message);
    }
}
