package io.varve.broker.config;

/** A configuration value that stops start-up; the message is one sentence an operator can act on. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
