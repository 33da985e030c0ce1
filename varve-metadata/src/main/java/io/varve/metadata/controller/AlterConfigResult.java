package io.varve.metadata.controller;

import io.varve.metadata.image.ConfigResource;
import org.apache.kafka.common.protocol.Errors;

/** The outcome of altering one resource's configs; {@code message} is null on success. */
public record AlterConfigResult(ConfigResource resource, Errors error, String message) {

    static AlterConfigResult success(ConfigResource resource) {
        return new AlterConfigResult(resource, Errors.NONE, null);
    }
}
