/**
 * The side-by-side benchmark harness: starts a single-node Apache Kafka and a single-node Varve with
 * the same heap, disk and settings, drives both with Kafka's own perf tools in alternating runs, and
 * reports medians and Varve/Kafka ratios. Owns process lifecycles (every child is stopped by its PID),
 * {@code /proc} readings and the markdown report; knows nothing of Varve's internals.
 */
package io.varve.bench;
