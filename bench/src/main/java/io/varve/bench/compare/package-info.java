/**
 * The regression guard of {@code bench/run --compare BASELINE}: a recorded run as data ({@link RunRecord}), read from
 * the JSON file the harness writes per run ({@link RunJson}) or from a section of {@code bench/RESULTS.md}
 * ({@link RunMarkdown}), and the pure comparison of two runs ({@link RunComparison}) that flags a figure which got
 * worse by more than the two runs' own noise. Depends on nothing of the harness (it is compiled and unit-tested by the
 * {@code bench} Maven module on its own), so it never starts a process or reads a clock.
 */
package io.varve.bench.compare;
