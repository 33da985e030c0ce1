package io.varve.broker.telemetry;

import io.varve.metadata.config.ClientMetricsConfigDef;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.record.ConfigResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.zip.CRC32;

/**
 * Which metrics a client should push and how often, from the client-metrics resources of the metadata image (as
 * {@code kafka-client-metrics --alter --name N --metrics P --interval I --match client_id=R} sets them). A client
 * takes every resource whose {@code match} entries all match it (a resource without {@code match} takes every
 * client): the union of their metric prefixes and the shortest interval. Pure.
 */
public final class ClientMetricsSubscriptions {
    private ClientMetricsSubscriptions() {}

    /** What a client tells about itself; unknown parts are empty. */
    public record Client(
            String clientInstanceId,
            String clientId,
            String softwareName,
            String softwareVersion,
            String sourceAddress,
            String sourcePort) {
        String selector(String name) {
            return switch (name) {
                case "client_instance_id" -> clientInstanceId;
                case "client_id" -> clientId;
                case "client_software_name" -> softwareName;
                case "client_software_version" -> softwareVersion;
                case "client_source_address" -> sourceAddress;
                case "client_source_port" -> sourcePort;
                default -> "";
            };
        }
    }

    /**
     * @param requestedMetrics the prefixes to push: empty for none, one empty string for all
     * @param subscriptionId   changes whenever the prefixes or the interval change for this client
     */
    public record Subscription(List<String> requestedMetrics, int pushIntervalMs, int subscriptionId) {}

    public static Subscription forClient(Map<ConfigResource, Map<String, String>> configs, Client client) {
        TreeSet<String> prefixes = new TreeSet<>();
        int interval = Integer.MAX_VALUE;
        boolean matched = false;
        for (Map.Entry<ConfigResource, Map<String, String>> e : byName(configs).values()) {
            Map<String, String> c = e.getValue();
            if (!matches(c.get(ClientMetricsConfigDef.MATCH), client)) {
                continue;
            }
            matched = true;
            for (String p : ClientMetricsConfigDef.list(c.get(ClientMetricsConfigDef.METRICS))) {
                prefixes.add(p.equals("*") ? "" : p);
            }
            String i = c.get(ClientMetricsConfigDef.INTERVAL_MS);
            interval = Math.min(
                    interval, i == null ? ClientMetricsConfigDef.DEFAULT_INTERVAL_MS : Integer.parseInt(i.trim()));
        }
        if (!matched) {
            interval = ClientMetricsConfigDef.DEFAULT_INTERVAL_MS;
        }
        List<String> requested = prefixes.contains("") ? List.of("") : List.copyOf(prefixes);
        return new Subscription(requested, interval, id(requested, interval, client.clientInstanceId()));
    }

    private static Map<String, Map.Entry<ConfigResource, Map<String, String>>> byName(
            Map<ConfigResource, Map<String, String>> configs) {
        Map<String, Map.Entry<ConfigResource, Map<String, String>>> out = new TreeMap<>();
        for (Map.Entry<ConfigResource, Map<String, String>> e : configs.entrySet()) {
            if (e.getKey().type() == ConfigResourceType.CLIENT_METRICS
                    && !e.getValue().isEmpty()) {
                out.put(e.getKey().name(), e);
            }
        }
        return out;
    }

    private static boolean matches(String match, Client client) {
        for (String entry : ClientMetricsConfigDef.list(match)) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                return false;
            }
            String value = client.selector(entry.substring(0, eq).trim());
            try {
                if (value == null
                        || !Pattern.compile(entry.substring(eq + 1).trim())
                                .matcher(value)
                                .matches()) {
                    return false;
                }
            } catch (PatternSyntaxException e) {
                return false; // validated when set; a bad one matches nothing
            }
        }
        return true;
    }

    /** A CRC32 of what the client was asked for, so a change of subscription gives a new id. */
    private static int id(List<String> requested, int interval, String instanceId) {
        CRC32 crc = new CRC32();
        List<String> parts = new ArrayList<>(requested);
        parts.add(Integer.toString(interval));
        parts.add(instanceId);
        crc.update(String.join("\u0000", parts).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }
}
