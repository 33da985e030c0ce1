/**
 * The remote storage SPI, in the spirit of KIP-405's {@code RemoteStorageManager}: copy a rolled segment with its
 * indexes to an object store, read byte ranges and indexes back, delete them. Implementations are the filesystem
 * and S3 backends ({@code io.varve.tiered.fs}, {@code io.varve.tiered.s3}); {@link io.varve.tiered.spi.RemoteStorageFactory}
 * picks one from broker configuration. Errors say whether a retry can help
 * ({@link io.varve.tiered.spi.RemoteStorageException#retriable()}). Knows segments only through their metadata
 * ({@code io.varve.tiered.metadata}); never the broker or the local log.
 */
package io.varve.tiered.spi;
