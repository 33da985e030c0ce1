package io.varve.broker.logging;

import java.util.Map;

/**
 * The node's logger levels, as Kafka's BROKER_LOGGER config resource shows and changes them
 * ({@code kafka-configs --entity-type broker-loggers}). Changes live in memory only, as in Kafka: a restart
 * goes back to the logging configuration file.
 */
public interface LoggerLevels {
    /** The name Kafka gives the root logger. */
    String ROOT = "root";

    /** Every logger the node has, by name ({@link #ROOT} included), with its effective level. */
    Map<String, String> levels();

    /**
     * Checks and, unless {@code validateOnly}, applies changes: a level for a logger, or null to make it inherit
     * its parent's again.
     *
     * @return why the changes are refused (nothing is applied then), or null
     */
    String apply(Map<String, String> changes, boolean validateOnly);

    /** A node whose SLF4J backend Varve cannot steer: no loggers, every change refused. */
    LoggerLevels NONE = new LoggerLevels() {
        @Override
        public Map<String, String> levels() {
            return Map.of();
        }

        @Override
        public String apply(Map<String, String> changes, boolean validateOnly) {
            return "This node's logging backend is not logback: its logger levels cannot be changed at run time.";
        }
    };

    /** The node's logback loggers when logback is the SLF4J backend, else {@link #NONE}. */
    static LoggerLevels detect() {
        try {
            Class.forName("ch.qos.logback.classic.LoggerContext");
        } catch (ClassNotFoundException e) {
            return NONE;
        }
        return LogbackLoggerLevels.ofCurrentContext();
    }
}
