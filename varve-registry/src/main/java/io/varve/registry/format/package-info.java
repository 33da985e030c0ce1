/** The three formats: parsing with well-kept libraries (Avro, networknt, wire-schema) and the glue around them. */
package io.varve.registry.format;
