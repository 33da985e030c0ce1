/**
 * Event-sourced cluster metadata. This package connects the Raft log to the images:
 * {@link io.varve.metadata.MetadataLoader} replays committed records and hands each new image to the
 * {@link io.varve.metadata.MetadataPublisher}s. Sub-packages: {@code record} (the events and their
 * format), {@code image} (immutable state and deltas), {@code controller} (validates requests and
 * writes records), {@code config} (topic config definitions). Must not depend on the broker.
 */
package io.varve.metadata;
