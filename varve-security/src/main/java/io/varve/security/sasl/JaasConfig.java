package io.varve.security.sasl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One login module entry of a {@code sasl.jaas.config} value, as Kafka writes it:
 * {@code org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" user_alice="secret";}.
 * Values are quoted (with {@code \"} and {@code \\} escapes) or bare words.
 */
public record JaasConfig(String loginModule, String controlFlag, Map<String, String> options) {
    private static final Set<String> FLAGS = Set.of("required", "requisite", "sufficient", "optional");

    /** The users of a PLAIN server: every {@code user_<name>} option. */
    public Map<String, String> plainUsers() {
        Map<String, String> users = new LinkedHashMap<>();
        options.forEach((key, value) -> {
            if (key.startsWith("user_") && key.length() > "user_".length()) {
                users.put(key.substring("user_".length()), value);
            }
        });
        return Collections.unmodifiableMap(users);
    }

    /** Parses one entry; {@code key} names the configuration in error messages. */
    public static JaasConfig parse(String key, String text) {
        Parser p = new Parser(key, text);
        String module = p.word("a login module class");
        String flag = p.word("a control flag (required, requisite, sufficient or optional)");
        if (!FLAGS.contains(flag)) {
            throw p.error("'" + flag + "' is not a control flag: use required, requisite, sufficient or optional");
        }
        Map<String, String> options = new LinkedHashMap<>();
        while (!p.atSemicolon()) {
            String name = p.word("an option name");
            p.expect('=');
            options.put(name, p.value());
        }
        p.skipSpaces();
        if (p.pos < text.length()) {
            throw p.error("only one login module may be given, found more after ';'");
        }
        return new JaasConfig(module, flag, Collections.unmodifiableMap(options));
    }

    private static final class Parser {
        private final String key;
        private final String text;
        private int pos;

        Parser(String key, String text) {
            this.key = key;
            this.text = text;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException(key + " is not a valid JAAS configuration: " + what + ".");
        }

        void skipSpaces() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        boolean atSemicolon() {
            skipSpaces();
            if (pos >= text.length()) {
                throw error("it must end with ';'");
            }
            if (text.charAt(pos) == ';') {
                pos++;
                return true;
            }
            return false;
        }

        String word(String what) {
            skipSpaces();
            int start = pos;
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (Character.isWhitespace(c) || c == '=' || c == ';' || c == '"') {
                    break;
                }
                pos++;
            }
            if (start == pos) {
                throw error("expected " + what);
            }
            return text.substring(start, pos);
        }

        void expect(char c) {
            skipSpaces();
            if (pos >= text.length() || text.charAt(pos) != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        String value() {
            skipSpaces();
            if (pos < text.length() && text.charAt(pos) == '"') {
                pos++;
                StringBuilder out = new StringBuilder();
                while (pos < text.length()) {
                    char c = text.charAt(pos++);
                    if (c == '\\' && pos < text.length()) {
                        out.append(text.charAt(pos++));
                    } else if (c == '"') {
                        return out.toString();
                    } else {
                        out.append(c);
                    }
                }
                throw error("a quoted value is not closed");
            }
            return word("a value");
        }
    }
}
