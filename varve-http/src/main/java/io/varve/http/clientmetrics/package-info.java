/**
 * Client metrics (KIP-714) as Prometheus series: the OTLP payload decoder and the store of what each client
 * instance pushed last. The broker answers the protocol (GetTelemetrySubscriptions, PushTelemetry) and hands the
 * decoded points here.
 */
package io.varve.http.clientmetrics;
