package io.varve.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of {@code varve.http.listeners}: {@code http://host:port} or {@code https://host:port}, the syntax of
 * Kafka's {@code listeners}.
 */
public record HttpEndpoint(String host, int port, boolean tls) {
    public HttpEndpoint(String host, int port) {
        this(host, port, false);
    }

    /**
     * Whether the endpoint accepts connections only from this machine: bound to a loopback address or to a name that
     * resolves to one ({@code localhost}). An empty host (every interface) is not.
     */
    public boolean loopbackOnly() {
        if (host.isEmpty()) {
            return false;
        }
        try {
            for (java.net.InetAddress a : java.net.InetAddress.getAllByName(host)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

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
                throw new IllegalArgumentException("Invalid entry '" + entry + "' in " + key
                        + ": expected http://host:port or https://host:port.");
            }
            String scheme = m.group(1).toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw new IllegalArgumentException(
                        "Invalid entry '" + entry + "' in " + key + ": the scheme must be http or https.");
            }
            String host = m.group(2);
            if (host.startsWith("[")) {
                host = host.substring(1, host.length() - 1);
            }
            int port = Integer.parseInt(m.group(3));
            if (port > 65535) {
                throw new IllegalArgumentException("Invalid port " + port + " in " + key + " entry '" + entry + "'.");
            }
            out.add(new HttpEndpoint(host, port, scheme.equals("https")));
        }
        return out;
    }

    @Override
    public String toString() {
        return (tls ? "https://" : "http://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
