/**
 * Integration tests: a real Varve node (in this JVM, or as a child process; several as a cluster in
 * {@code io.varve.it.cluster}) driven over real sockets by kafka-clients, kcat and raw protocol frames. They prove what a user of the broker sees, not how it is built.
 * Owns only test code; main code is reached through {@link io.varve.it.TestBroker} and the {@code varve} command.
 * What several tests need is written once here: {@link io.varve.it.ClientSupport} (topics, reading a log to its end),
 * {@link io.varve.it.ToolRun} (a Kafka tool or the {@code varve} CLI in its own JVM), {@link io.varve.it.Kcat},
 * {@link io.varve.it.RawClient} (raw frames) and {@link io.varve.it.LoopbackProxy} (the proxies in front of a broker).
 */
package io.varve.it;
