package io.varve.broker.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One entry of {@code listeners} or {@code advertised.listeners}: {@code NAME://host:port}. */
public record ListenerConfig(String name, String host, int port, String securityProtocol) {

    private static final Pattern ENTRY = Pattern.compile("^([A-Za-z0-9_]+)://(\\[[^\\]]*\\]|[^:/\\[\\]]*):(-?\\d+)$");

    /** Parses a comma separated listener list; {@code key} names the config in error messages. */
    public static List<ListenerConfig> parseList(
            String key, List<String> entries, Map<String, String> securityProtocolMap) {
        List<ListenerConfig> result = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (String entry : entries) {
            Matcher m = ENTRY.matcher(entry.trim());
            if (!m.matches()) {
                throw new ConfigException(
                        "Invalid listener '" + entry + "' in " + key + ": expected NAME://host:port.");
            }
            String name = m.group(1).toUpperCase(Locale.ROOT);
            String host = m.group(2);
            if (host.startsWith("[")) {
                host = host.substring(1, host.length() - 1);
            }
            int port = Integer.parseInt(m.group(3));
            if (port < 0 || port > 65535) {
                throw new ConfigException("Invalid port " + port + " in " + key + " entry '" + entry + "'.");
            }
            String protocol = securityProtocolMap.get(name);
            if (protocol == null) {
                throw new ConfigException("Listener name " + name + " in " + key
                        + " has no security protocol: add it to listener.security.protocol.map.");
            }
            if (!names.add(name)) {
                throw new ConfigException("Listener name " + name + " appears twice in " + key + ".");
            }
            result.add(new ListenerConfig(name, host, port, protocol));
        }
        return result;
    }

    /** The host clients should use when this listener binds to every interface. */
    public String advertisedHost() {
        return host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") ? "localhost" : host;
    }
}
