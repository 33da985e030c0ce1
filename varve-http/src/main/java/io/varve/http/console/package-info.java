/**
 * The web console: server-rendered pages of the node's state (overview, topics, consumer groups with lag and a lag
 * chart over the last hour), read through the same {@code BrokerView} as the metrics. Front-end libraries (htmx,
 * uPlot) come from webjars on the classpath; no Node step. Read-only so far.
 */
package io.varve.http.console;
