/**
 * Remote log metadata: what is in remote storage, segment by segment, and in which lifecycle state.
 *
 * <p>{@link io.varve.tiered.metadata.RemoteLogMetadataCache} is a pure state machine (events in, state out, no I/O)
 * that follows KIP-405's segment states; {@link io.varve.tiered.metadata.RemoteLogMetadataStore} makes it durable
 * with an append-only, CRC-protected event file that is replayed on start-up. This package must not depend on
 * the storage backends ({@code io.varve.tiered.spi} and below) nor on the broker.
 */
package io.varve.tiered.metadata;
