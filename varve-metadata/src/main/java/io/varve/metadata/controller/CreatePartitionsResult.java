package io.varve.metadata.controller;

import org.apache.kafka.common.protocol.Errors;

/** The outcome for one topic of a CreatePartitions request; {@code message} is null on success. */
public record CreatePartitionsResult(String name, Errors error, String message) {}
