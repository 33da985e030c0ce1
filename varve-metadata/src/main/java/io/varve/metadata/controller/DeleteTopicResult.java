package io.varve.metadata.controller;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** The outcome for one topic named (by name or id) in a DeleteTopics request. */
public record DeleteTopicResult(String name, Uuid topicId, Errors error, String errorMessage) {}
