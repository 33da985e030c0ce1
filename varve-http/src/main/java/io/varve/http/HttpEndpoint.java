package io.varve.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One entry of {@code varve.http.listeners}: {@code http://host:port}, the syntax of Kafka's {@code listeners}. */
public record HttpEndpoint(String host, int port) {
    private static final Pattern ENTRY = Pattern.compile("^([A-Za-z0-9_]+)://(\\[[^\\]]*\\]|[^:/\\[\\]]*):(\\d+)$");

    /**
     * Parses the list; {@code key} names the setting in the message of the {@link IllegalArgumentException} thrown for
     * an entry that is not {@code http://host:port}.
     */
    public static List<HttpEndpoint> parseList(String key, List<String> entries) {
        List<HttpEndpoint> out = new ArrayList<>();
        for (String raw : entries) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            Matcher m = ENTRY.matcher(entry);
            if (!m.matches()) {
                throw new IllegalArgumentException(
                        "Invalid entry '" + entry + "' in " + key + ": expected http://host:port.");
            }
            String scheme = m.group(1).toLowerCase(Locale.ROOT);
            if (scheme.equals("https")) {
                throw new IllegalArgumentException("Entry '" + entry + "' in " + key
                        + " asks for https, which Varve's HTTP listener does not serve yet: use http://.");
            }
            if (!scheme.equals("http")) {
                throw new IllegalArgumentException(
                        "Invalid entry '" + entry + "' in " + key + ": the scheme must be http.");
            }
            String host = m.group(2);
            if (host.startsWith("[")) {
                host = host.substring(1, host.length() - 1);
            }
            int port = Integer.parseInt(m.group(3));
            if (port > 65535) {
                throw new IllegalArgumentException("Invalid port " + port + " in " + key + " entry '" + entry + "'.");
            }
            out.add(new HttpEndpoint(host, port));
        }
        return out;
    }

    @Override
    public String toString() {
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
