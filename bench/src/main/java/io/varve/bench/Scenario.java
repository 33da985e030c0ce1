package io.varve.bench;

/**
 * One scenario of the issue. The harness calls {@link #measure} once per broker per round, alternating
 * Kafka and Varve; each call starts its own broker(s) and stops them before it returns.
 */
public interface Scenario {

    int number();

    String title();

    /** One line on sizes and client settings, for the report. */
    String setup(BenchOptions.Sizes sizes);

    Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception;
}
