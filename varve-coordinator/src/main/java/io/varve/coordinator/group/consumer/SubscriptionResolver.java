package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.TopicsSnapshot;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.errors.InvalidRegularExpression;

/**
 * Turns subscriptions (topic names and a regular expression) into existing topics. Regular expressions use
 * Java's syntax (Kafka uses RE2J, a subset) and must match a whole topic name; internal topics never match.
 * Compiled patterns and their matches are cached per topics version.
 */
final class SubscriptionResolver {
    private static final int MAX_CACHED_PATTERNS = 1024;

    private record Resolved(long topicsVersion, Set<String> topics) {}

    private final Map<String, Pattern> patterns = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Pattern> eldest) {
            return size() > MAX_CACHED_PATTERNS;
        }
    };
    private final Map<String, Resolved> matches = new HashMap<>();

    /** @throws InvalidRegularExpression when the expression does not compile */
    Pattern compile(String regex) {
        Pattern p = patterns.get(regex);
        if (p == null) {
            try {
                p = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new InvalidRegularExpression("SubscribedTopicRegex `" + regex
                        + "` is not a valid regular expression: " + e.getDescription() + ".");
            }
            patterns.put(regex, p);
        }
        return p;
    }

    /** The existing topics a member subscribes to, sorted by name. */
    Set<String> resolve(ConsumerMember m, TopicsSnapshot topics) {
        Set<String> result = new TreeSet<>();
        for (String name : m.subscribedTopicNames) {
            if (topics.byName(name) != null) {
                result.add(name);
            }
        }
        if (m.subscribedTopicRegex != null && !m.subscribedTopicRegex.isEmpty()) {
            result.addAll(matching(m.subscribedTopicRegex, topics));
        }
        return result;
    }

    private Set<String> matching(String regex, TopicsSnapshot topics) {
        Resolved cached = matches.get(regex);
        if (cached != null && cached.topicsVersion == topics.version()) {
            return cached.topics;
        }
        Pattern p = compile(regex);
        Set<String> found = new TreeSet<>();
        for (TopicsSnapshot.Topic t : topics.all()) {
            if (!t.internal() && p.matcher(t.name()).matches()) {
                found.add(t.name());
            }
        }
        if (matches.size() >= MAX_CACHED_PATTERNS) {
            matches.clear();
        }
        matches.put(regex, new Resolved(topics.version(), Set.copyOf(found)));
        return found;
    }
}
