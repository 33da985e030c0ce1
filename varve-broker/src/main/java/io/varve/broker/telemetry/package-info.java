/**
 * Client metrics (KIP-714): the subscriptions Kafka's client-metrics config resources describe ({@link
 * io.varve.broker.telemetry.ClientMetricsSubscriptions}, pure) and the GetTelemetrySubscriptions / PushTelemetry
 * handlers ({@link io.varve.broker.telemetry.TelemetryApis}), which hand what clients push to varve-http's store.
 */
package io.varve.broker.telemetry;
