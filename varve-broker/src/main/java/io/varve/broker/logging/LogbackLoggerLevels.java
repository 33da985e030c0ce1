package io.varve.broker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.LoggerFactory;

/** {@link LoggerLevels} over logback's logger context. */
final class LogbackLoggerLevels implements LoggerLevels {
    /** Kafka's level names; logback has no FATAL, which Kafka's users still send: it means ERROR here. */
    private static final Set<String> LEVELS = Set.of("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL");

    private final LoggerContext context;

    private LogbackLoggerLevels(LoggerContext context) {
        this.context = context;
    }

    static LoggerLevels ofCurrentContext() {
        return LoggerFactory.getILoggerFactory() instanceof LoggerContext c ? new LogbackLoggerLevels(c) : NONE;
    }

    @Override
    public Map<String, String> levels() {
        Map<String, String> out = new TreeMap<>();
        for (Logger l : context.getLoggerList()) {
            String name = l.getName().equals(Logger.ROOT_LOGGER_NAME) ? ROOT : l.getName();
            out.put(name, l.getEffectiveLevel().toString());
        }
        return out;
    }

    @Override
    public String apply(Map<String, String> changes, boolean validateOnly) {
        for (Map.Entry<String, String> e : changes.entrySet()) {
            String logger = e.getKey();
            if (logger.equals(ROOT) && e.getValue() == null) {
                return "Removing the log level of the " + ROOT + " logger is not allowed";
            }
            if (!logger.equals(ROOT) && context.exists(logger) == null) {
                return "Logger " + logger + " does not exist!";
            }
            if (e.getValue() != null && !LEVELS.contains(e.getValue().toUpperCase(Locale.ROOT))) {
                return "Cannot set the log level of " + logger + " to " + e.getValue() + " as it is not a supported"
                        + " log level. Valid log levels are " + String.join(", ", new TreeSet<>(LEVELS));
            }
        }
        if (validateOnly) {
            return null;
        }
        changes.forEach((logger, level) -> {
            Logger l = logger.equals(ROOT) ? context.getLogger(Logger.ROOT_LOGGER_NAME) : context.getLogger(logger);
            l.setLevel(level == null ? null : toLogback(level));
            LoggerFactory.getLogger(LogbackLoggerLevels.class)
                    .info("Logger {} set to {} through BROKER_LOGGER", logger, level == null ? "its parent's" : level);
        });
        return null;
    }

    private static Level toLogback(String level) {
        String upper = level.toUpperCase(Locale.ROOT);
        return upper.equals("FATAL") ? Level.ERROR : Level.toLevel(upper);
    }
}
