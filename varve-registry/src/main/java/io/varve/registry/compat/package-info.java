/**
 * Compatibility: the levels, and the rules for JSON Schema and Protobuf that we write ourselves (Avro's come from
 * Apache Avro). Pure functions of two parsed schemas.
 */
package io.varve.registry.compat;
