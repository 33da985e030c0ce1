/**
 * The web console: server-rendered pages of the node (overview, topics, a topic's partitions and configs, consumer
 * groups with lag, a lag chart and offset reset, the message browser, ACLs, SCRAM users and quotas, throughput charts).
 * Reads go through the same {@code BrokerView} as the metrics; every action through {@code ConsoleActions}, which the
 * broker implements with in-process Kafka requests. Front-end libraries (htmx, uPlot) come from webjars on the
 * classpath; no Node step. Renders and parses parameters only: no Kafka or storage classes.
 */
package io.varve.http.console;
