package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.classic.ClassicProtocol;
import io.varve.coordinator.group.record.ConsumerGroupValue;
import java.util.List;

/**
 * What a member of a consumer group that still speaks the classic protocol (JoinGroup, SyncGroup, Heartbeat)
 * brings beyond a consumer member: its own session timeout and the protocols it offered, which a downgrade back
 * to a classic group needs.
 */
public record ClassicMetadata(int sessionTimeoutMs, List<ClassicProtocol> protocols) {
    public ClassicMetadata {
        protocols = List.copyOf(protocols);
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("a classic member offers at least one protocol");
        }
    }

    /** The protocol a classic member is told it uses: its first (most preferred) one, as Kafka does. */
    public String protocolName() {
        return protocols.get(0).name();
    }

    public byte[] metadata(String protocol) {
        for (ClassicProtocol p : protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return null;
    }

    ConsumerGroupValue.ClassicMemberValue toValue() {
        return new ConsumerGroupValue.ClassicMemberValue(
                sessionTimeoutMs,
                protocols.stream()
                        .map(p -> new ConsumerGroupValue.ClassicProtocolValue(p.name(), p.metadata()))
                        .toList());
    }

    static ClassicMetadata fromValue(ConsumerGroupValue.ClassicMemberValue v) {
        return v == null
                ? null
                : new ClassicMetadata(
                        v.sessionTimeoutMs(),
                        v.protocols().stream()
                                .map(p -> new ClassicProtocol(p.name(), p.metadata()))
                                .toList());
    }
}
