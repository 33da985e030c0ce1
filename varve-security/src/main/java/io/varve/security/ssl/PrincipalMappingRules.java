package io.varve.security.ssl;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code ssl.principal.mapping.rules}, in Kafka's syntax: a comma separated list of {@code DEFAULT} and
 * {@code RULE:pattern/replacement/} entries, each optionally followed by {@code L} or {@code U} (lower or upper case
 * the result). The subject's distinguished name (RFC 2253 form) is tried against each rule in order; the first whose
 * pattern matches the whole name gives the principal's name, {@code DEFAULT} gives the name unchanged. A name no rule
 * matches has no principal: the connection is refused rather than given some fallback identity.
 */
public final class PrincipalMappingRules {

    private sealed interface Rule permits DefaultRule, RegexRule {
        Optional<String> apply(String distinguishedName);
    }

    private record DefaultRule() implements Rule {
        @Override
        public Optional<String> apply(String distinguishedName) {
            return Optional.of(distinguishedName);
        }
    }

    private record RegexRule(Pattern pattern, String replacement, char caseFlag) implements Rule {
        @Override
        public Optional<String> apply(String distinguishedName) {
            Matcher m = pattern.matcher(distinguishedName);
            if (!m.matches()) {
                return Optional.empty();
            }
            String mapped = m.replaceAll(replacement);
            return Optional.of(
                    switch (caseFlag) {
                        case 'L' -> mapped.toLowerCase(Locale.ROOT);
                        case 'U' -> mapped.toUpperCase(Locale.ROOT);
                        default -> mapped;
                    });
        }
    }

    public static final PrincipalMappingRules DEFAULT = new PrincipalMappingRules(List.of(new DefaultRule()));

    private final List<Rule> rules;

    private PrincipalMappingRules(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** The principal name for a subject, or empty when no rule matches it. */
    public Optional<String> map(String distinguishedName) {
        for (Rule rule : rules) {
            Optional<String> name = rule.apply(distinguishedName);
            if (name.isPresent()) {
                return name;
            }
        }
        return Optional.empty();
    }

    /** Parses the rules; throws {@link IllegalArgumentException} with a sentence naming what is wrong. */
    public static PrincipalMappingRules parse(String text) {
        List<Rule> rules = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (true) {
            i = skip(text, i);
            if (i >= n) {
                break;
            }
            if (text.startsWith("DEFAULT", i)) {
                rules.add(new DefaultRule());
                i += "DEFAULT".length();
            } else if (text.startsWith("RULE:", i)) {
                i += "RULE:".length();
                StringBuilder pattern = new StringBuilder();
                i = readUntilSlash(text, i, pattern);
                StringBuilder replacement = new StringBuilder();
                i = readUntilSlash(text, i, replacement);
                char flag = 0;
                if (i < n && (text.charAt(i) == 'L' || text.charAt(i) == 'U')) {
                    flag = text.charAt(i++);
                }
                try {
                    rules.add(new RegexRule(Pattern.compile(pattern.toString()), replacement.toString(), flag));
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException("ssl.principal.mapping.rules has an invalid pattern '" + pattern
                            + "': " + e.getDescription());
                }
            } else {
                throw new IllegalArgumentException("ssl.principal.mapping.rules has an invalid rule at '"
                        + text.substring(i) + "': expected DEFAULT or RULE:pattern/replacement/[LU]");
            }
            i = skipSpaces(text, i);
            if (i < n && text.charAt(i) != ',') {
                throw new IllegalArgumentException("ssl.principal.mapping.rules has unexpected text '"
                        + text.substring(i) + "' after a rule: rules are separated by commas");
            }
        }
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("ssl.principal.mapping.rules names no rule: use DEFAULT");
        }
        return new PrincipalMappingRules(rules);
    }

    /** Reads up to an unescaped '/', which it consumes; {@code \/} stands for a slash. */
    private static int readUntilSlash(String text, int i, StringBuilder out) {
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '/') {
                out.append('/');
                i += 2;
            } else if (c == '/') {
                return i + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        throw new IllegalArgumentException(
                "ssl.principal.mapping.rules has a rule without its closing '/': RULE:" + out);
    }

    private static int skip(String text, int i) {
        while (i < text.length() && (text.charAt(i) == ',' || Character.isWhitespace(text.charAt(i)))) {
            i++;
        }
        return i;
    }

    private static int skipSpaces(String text, int i) {
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
