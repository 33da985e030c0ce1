/** The seam to the broker: the log the registry's records live in. The broker implements it; tests use memory. */
package io.varve.registry.store;
