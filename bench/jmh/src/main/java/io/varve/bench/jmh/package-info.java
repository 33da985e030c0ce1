/**
 * JMH micro-benchmarks of Varve's storage hot paths: produce-batch validation, leader append, offset-index
 * lookup, and the storage half of a fetch (locating and slicing batches). Inputs are real v2 record
 * batches built with kafka-clients; logs live in temporary directories removed after each trial.
 */
package io.varve.bench.jmh;
