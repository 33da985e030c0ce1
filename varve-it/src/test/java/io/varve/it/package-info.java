/**
 * Integration tests: a real Varve node (in this JVM, or as a child process; several as a cluster in
 * {@code io.varve.it.cluster}) driven over real sockets by kafka-clients, kcat and raw protocol frames. They prove what a user of the broker sees, not how it is built.
 * Owns only test code; main code is reached through {@link io.varve.it.TestBroker} and the {@code varve} command.
 */
package io.varve.it;
