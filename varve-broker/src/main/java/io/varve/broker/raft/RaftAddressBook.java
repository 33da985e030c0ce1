package io.varve.broker.raft;

import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.VoterSet;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where each replica of the metadata quorum listens, on this node's controller listener ({@code listenerName}): the
 * voter set in effect (a dynamic quorum's voters carry their endpoints), else {@code controller.quorum.voters} (a
 * static quorum), else what a leader announced in a fetch response (KIP-853's NodeEndpoints: how an observer that
 * knows no voter yet reaches the leader a bootstrap server named). The bootstrap servers ({@code
 * controller.quorum.bootstrap.servers}) stand at the destinations {@link RaftMessage#bootstrapServerId(int)}.
 * Thread-safe: read by the transport's threads, fed by responses.
 */
public final class RaftAddressBook implements Function<Integer, InetSocketAddress> {
    /** Replicas learned from responses beyond the voters; the map is cleared when it grows past this. */
    private static final int MAX_LEARNED = 1024;

    private final String listenerName;
    private final Map<Integer, InetSocketAddress> staticVoters;
    private final List<InetSocketAddress> bootstrapServers;
    private final Map<Integer, InetSocketAddress> learned = new ConcurrentHashMap<>();
    private volatile Supplier<VoterSet> voters = () -> VoterSet.EMPTY;

    public RaftAddressBook(
            String listenerName,
            Map<Integer, InetSocketAddress> staticVoters,
            List<InetSocketAddress> bootstrapServers) {
        this.listenerName = listenerName;
        this.staticVoters = Map.copyOf(staticVoters);
        this.bootstrapServers = List.copyOf(bootstrapServers);
    }

    /** Where the voter set in effect is read (the runtime's status), once the runtime exists. */
    public void watchVoters(Supplier<VoterSet> voters) {
        this.voters = voters;
    }

    public String listenerName() {
        return listenerName;
    }

    public int bootstrapServerCount() {
        return bootstrapServers.size();
    }

    /** The address of a replica or bootstrap-server destination, or null when none is known. */
    @Override
    public InetSocketAddress apply(Integer destinationId) {
        int bootstrap = RaftMessage.bootstrapServerIndex(destinationId);
        if (bootstrap >= 0) {
            return bootstrap < bootstrapServers.size() ? bootstrapServers.get(bootstrap) : null;
        }
        Optional<VoterSet.Endpoint> inSet = voterEndpoint(destinationId);
        if (inSet.isPresent()) {
            return InetSocketAddress.createUnresolved(
                    inSet.get().host(), inSet.get().port());
        }
        InetSocketAddress configured = staticVoters.get(destinationId);
        return configured != null ? configured : learned.get(destinationId);
    }

    /** A replica's endpoint on the controller listener, if known: what a response tells a replica looking for it. */
    public Optional<VoterSet.Endpoint> endpointOf(int replicaId) {
        Optional<VoterSet.Endpoint> inSet = voterEndpoint(replicaId);
        if (inSet.isPresent()) {
            return inSet;
        }
        InetSocketAddress address = staticVoters.get(replicaId);
        if (address == null) {
            address = learned.get(replicaId);
        }
        return address == null
                ? Optional.empty()
                : Optional.of(new VoterSet.Endpoint(address.getHostString(), address.getPort()));
    }

    /** Records the endpoint a response announced for a replica. */
    void learn(int replicaId, String host, int port) {
        if (!RaftMessage.isId(replicaId) || host == null || host.isEmpty() || port <= 0 || port > 65535) {
            return;
        }
        if (learned.size() >= MAX_LEARNED) {
            learned.clear();
        }
        learned.put(replicaId, InetSocketAddress.createUnresolved(host, port));
    }

    private Optional<VoterSet.Endpoint> voterEndpoint(int replicaId) {
        return voters.get().voter(replicaId).map(v -> v.endpoints().get(listenerName));
    }
}
