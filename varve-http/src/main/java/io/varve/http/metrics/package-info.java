/**
 * Prometheus metrics of a Varve node: the recorders the broker's hot paths write to ({@link
 * io.varve.http.metrics.TopicTraffic}, {@link io.varve.http.metrics.RequestMetrics}, {@link
 * io.varve.http.metrics.Histogram}: adders, no locks, nothing per record) and the collector that turns them and the
 * broker's read-only views ({@code io.varve.http.view}) into metric families named as the Strimzi / jmx_exporter rules
 * name Kafka's MBeans (see varve-http/README.md). The families read from every partition and group are computed and
 * rendered at most once per refresh interval ({@code NodeStateFamilies}); the rest at every
 * scrape. Owns no broker state and touches no storage classes.
 */
package io.varve.http.metrics;
