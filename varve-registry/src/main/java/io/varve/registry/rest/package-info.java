/**
 * The REST API on the JDK's HTTP server: {@link RestServer} owns the listener and a bounded pool, {@link Routes} maps
 * Confluent's paths to {@link io.varve.registry.SchemaRegistry} calls, {@link HttpExchangeIo} reads bodies and writes
 * JSON in Confluent's content type and error bodies, {@link WriteForwarder} sends a write this node does not take to
 * the writer that {@link WriteRoute} names, and {@link Guard} checks each request against {@link RegistryAccess}.
 */
package io.varve.registry.rest;
