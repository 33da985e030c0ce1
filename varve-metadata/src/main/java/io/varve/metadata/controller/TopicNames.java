package io.varve.metadata.controller;

import java.util.Optional;

/** Kafka's rules for topic names. */
public final class TopicNames {

    public static final int MAX_NAME_LENGTH = 249;

    private TopicNames() {}

    /** Why the name is illegal, or empty if it is legal. */
    public static Optional<String> validate(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("Topic name is illegal, it can't be empty");
        }
        if (name.equals(".") || name.equals("..")) {
            return Optional.of("Topic name cannot be \".\" or \"..\"");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return Optional.of("Topic name is illegal, it can't be longer than " + MAX_NAME_LENGTH
                    + " characters, topic name: " + name);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!legal) {
                return Optional.of("Topic name \"" + name + "\" is illegal, it contains a character other than "
                        + "ASCII alphanumerics, '.', '_' and '-'");
            }
        }
        return Optional.empty();
    }

    /**
     * The form under which two names collide: metric names replace '.' with '_', so "a.b" and "a_b"
     * cannot both exist.
     */
    public static String collisionKey(String name) {
        return name.replace('.', '_');
    }
}
