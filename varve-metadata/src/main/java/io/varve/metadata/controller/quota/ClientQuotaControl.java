package io.varve.metadata.controller.quota;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ClientQuotaRecord;
import io.varve.metadata.record.MetadataRecord;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterClientQuotas on the controller. Each entry (one entity and its changes) is checked as Kafka checks it —
 * known entity types in an allowed combination (user, client-id, both, or ip alone), an ip entity naming an address,
 * known keys for the entity's kind, values of the key's type — and applies whole or not at all: a refused entry is
 * INVALID_REQUEST with the reason, the others still apply. {@code validateOnly} checks without writing. Removing a key
 * that is not set writes nothing. Pure: no I/O, no threads.
 */
public final class ClientQuotaControl {

    /** One key set to {@code value} or, with {@code remove}, dropped. */
    public record Op(String key, double value, boolean remove) {}

    /**
     * One entity and its changes. The entity lists (type, name) pairs as the request does: a null name is the
     * type's default entity; a type listed twice is refused.
     */
    public record Entry(List<Map.Entry<String, String>> entity, List<Op> ops) {
        public Entry {
            entity = List.copyOf(entity);
            ops = List.copyOf(ops);
        }
    }

    /** @return per entry (in request order) its result, and the records of the entries that passed */
    public ControllerResult<List<ErrorReply>> alter(MetadataImage image, List<Entry> entries, boolean validateOnly) {
        List<MetadataRecord> records = new ArrayList<>();
        List<ErrorReply> results = new ArrayList<>();
        for (Entry entry : entries) {
            Optional<String> refused = check(entry);
            if (refused.isPresent()) {
                results.add(ErrorReply.of(Errors.INVALID_REQUEST, refused.get()));
                continue;
            }
            results.add(ErrorReply.NONE);
            if (validateOnly) {
                continue;
            }
            Map<String, String> entity = entityOf(entry);
            Map<String, Double> current = image.clientQuotas().quotas(entity);
            for (Op op : entry.ops()) {
                if (op.remove()
                        ? current.containsKey(op.key())
                        : !Double.valueOf(op.value()).equals(current.get(op.key()))) {
                    records.add(new ClientQuotaRecord(entity, op.key(), op.value(), op.remove()));
                }
            }
        }
        return ControllerResult.of(records, results);
    }

    private static Map<String, String> entityOf(Entry entry) {
        Map<String, String> entity = new TreeMap<>();
        entry.entity().forEach(e -> entity.put(e.getKey(), e.getValue()));
        return entity;
    }

    /** Why Kafka would refuse this entry, or empty. */
    static Optional<String> check(Entry entry) {
        if (entry.entity().isEmpty()) {
            return Optional.of("Invalid empty client quota entity");
        }
        Set<String> types = new HashSet<>();
        for (Map.Entry<String, String> part : entry.entity()) {
            String type = part.getKey();
            if (!type.equals(ClientQuotaKeys.USER)
                    && !type.equals(ClientQuotaKeys.CLIENT_ID)
                    && !type.equals(ClientQuotaKeys.IP)) {
                return Optional.of("Unhandled client quota entity type: " + type);
            }
            if (!types.add(type)) {
                return Optional.of("Duplicate " + type + " in the client quota entity");
            }
            if (part.getValue() != null && part.getValue().isEmpty()) {
                return Optional.of("Empty " + type + " name in the client quota entity");
            }
        }
        boolean ip = types.contains(ClientQuotaKeys.IP);
        if (ip && types.size() > 1) {
            return Optional.of(
                    "Invalid quota entity combination, IP entity should not be combined with User or" + " ClientId");
        }
        if (ip) {
            String address = entry.entity().get(0).getValue();
            if (address != null && !isIpAddress(address)) {
                return Optional.of(address + " is not a valid IP address");
            }
        }
        Set<String> keys = new HashSet<>();
        for (Op op : entry.ops()) {
            if (!keys.add(op.key())) {
                return Optional.of("Duplicate quota key " + op.key());
            }
            Optional<String> bad = ClientQuotaKeys.checkValue(ip, op.key(), op.value(), op.remove());
            if (bad.isPresent()) {
                return bad;
            }
        }
        return Optional.empty();
    }

    /** A literal IPv4 or IPv6 address; host names are not looked up (the controller does no I/O). */
    private static boolean isIpAddress(String text) {
        boolean v4 = text.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = text.contains(":") && text.matches("[0-9A-Fa-f:.]+");
        if (!v4 && !v6) {
            return false;
        }
        try {
            InetAddress.getByName(text); // a literal: parsed, never resolved
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
