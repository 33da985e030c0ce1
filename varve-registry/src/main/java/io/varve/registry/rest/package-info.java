/**
 * The REST API on the JDK's HTTP server: {@link RestServer} owns the listener and a bounded pool, {@link Routes} maps
 * Confluent's paths to {@link io.varve.registry.SchemaRegistry} calls, {@link HttpExchangeIo} reads bodies and writes
 * JSON in Confluent's content type and error bodies.
 */
package io.varve.registry.rest;
