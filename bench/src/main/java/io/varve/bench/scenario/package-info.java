/**
 * The scenarios, one class each (shared set-up in {@link io.varve.bench.scenario.PartitionFleet}).
 * A scenario starts its broker, creates its topics, runs Kafka's tools and returns figures; it never keeps
 * a broker running past {@code measure}.
 */
package io.varve.bench.scenario;
