/**
 * Tiered storage: offloading rolled segments to object storage and reading them back. Sub-packages:
 * {@code spi} (the backend contract), {@code fs} and {@code s3} (backends), {@code metadata} (which segments are
 * remote, in which state, durably). {@link io.varve.tiered.RemoteStorageFactory} turns broker configuration into a
 * backend. Depends on kafka-clients' public types and the AWS SDK only; never on the broker.
 */
package io.varve.tiered;
