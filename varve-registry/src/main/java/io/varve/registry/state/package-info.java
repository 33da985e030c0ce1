/**
 * The registry's state as a pure image of its log: {@link RegistryRecords} encodes and decodes the {@code _schemas}
 * records (Confluent's key and value JSON), {@link RegistryState} applies them in order. No I/O here.
 */
package io.varve.registry.state;
