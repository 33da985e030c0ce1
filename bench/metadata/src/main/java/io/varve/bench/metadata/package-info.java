/**
 * The metadata scale run (issue 12): a three-voter controller quorum holding a million partitions, in one JVM with
 * the real classes over loopback sockets. See {@code bench/metadata/run} and bench/README.md.
 */
package io.varve.bench.metadata;
