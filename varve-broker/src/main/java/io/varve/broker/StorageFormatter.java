package io.varve.broker;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.security.BootstrapScramCredentials;
import io.varve.metadata.record.UserScramCredentialRecord;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.node.MetadataRaftRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * {@code varve format}: what Kafka's {@code kafka-storage format} does, for a node that must not format itself at
 * first start, a controller of a dynamic quorum (KIP-853, {@code controller.quorum.bootstrap.servers}): it writes
 * {@code meta.properties} (cluster id, node id, a directory id) in every log dir and the metadata log dir, and the
 * initial voter set as the metadata log's first entry.
 *
 * <ul>
 *   <li>{@link InitialVoters#standalone()}: this node alone, with a new directory id and its controller listeners:
 *       the first controller of a new quorum (Kafka's {@code --standalone}).
 *   <li>{@link InitialVoters#listed}: the voters {@code id@host:port:directoryId,...}, the same list on each of them
 *       (Kafka's {@code --initial-controllers}); this node must be listed, and its directory id is the one given.
 *   <li>{@link InitialVoters#none()}: no voters: the node joins as an observer through the bootstrap servers and
 *       becomes a voter when added ({@code kafka-metadata-quorum add-controller}; Kafka's {@code
 *       --no-initial-controllers}).
 * </ul>
 *
 * A static quorum ({@code controller.quorum.voters}, or a single node) takes none of these: its voters come from its
 * configuration, and it still formats itself at first start. Inconsistent input is refused with one sentence.
 */
public final class StorageFormatter {

    /** How the initial voters of a dynamic quorum are given ({@code voters}: the entries of a list). */
    public record InitialVoters(Kind kind, List<String> voters) {
        public enum Kind {
            STANDALONE,
            LISTED,
            NONE
        }

        public static InitialVoters standalone() {
            return new InitialVoters(Kind.STANDALONE, List.of());
        }

        public static InitialVoters listed(List<String> voters) {
            return new InitialVoters(Kind.LISTED, List.copyOf(voters));
        }

        public static InitialVoters none() {
            return new InitialVoters(Kind.NONE, List.of());
        }
    }

    private StorageFormatter() {}

    /**
     * Formats this node's directories; {@code initial} is null for a static quorum.
     *
     * @return the directory id written in the metadata log dir
     */
    public static Uuid format(BrokerConfig config, String clusterId, InitialVoters initial) throws IOException {
        return format(config, clusterId, initial, List.of());
    }

    /**
     * Formats this node's directories with SCRAM users ({@code --add-scram}) for the new cluster's metadata log.
     *
     * @return the directory id written in the metadata log dir
     */
    public static Uuid format(BrokerConfig config, String clusterId, InitialVoters initial, List<String> addScram)
            throws IOException {
        return format(config, clusterId, initial, addScram, List.of());
    }

    /**
     * Formats this node's directories with SCRAM users and feature levels ({@code --feature NAME=LEVEL}, see {@link
     * BootstrapFeatures}) for the new cluster's metadata log.
     *
     * @return the directory id written in the metadata log dir
     */
    public static Uuid format(
            BrokerConfig config, String clusterId, InitialVoters initial, List<String> addScram, List<String> features)
            throws IOException {
        java.util.Map<String, Short> featureLevels = BootstrapFeatures.parse(features);
        List<UserScramCredentialRecord> scram = BootstrapScramCredentials.derive(addScram, new SecureRandom());
        // an empty process.roles is a lone combined node
        if (!scram.isEmpty()
                && !config.processRoles().isEmpty()
                && !config.processRoles().contains("controller")) {
            throw new ConfigException("--add-scram is for a controller: the first active controller of the new"
                    + " cluster writes the users into the metadata log. Format the controllers with it.");
        }
        if (clusterId == null || clusterId.isBlank()) {
            throw new ConfigException("--cluster-id is required: the same id on every node of the cluster.");
        }
        boolean dynamic = !config.controllerQuorumBootstrapServers().isEmpty();
        if (dynamic && initial == null) {
            throw new ConfigException(
                    "controller.quorum.bootstrap.servers is set (a dynamic quorum): give --standalone,"
                            + " --initial-controllers or --no-initial-controllers.");
        }
        if (!dynamic && initial != null) {
            throw new ConfigException(
                    "--standalone, --initial-controllers and --no-initial-controllers are for a dynamic"
                            + " quorum: set controller.quorum.bootstrap.servers, or leave them out (a static quorum takes its"
                            + " voters from controller.quorum.voters).");
        }
        Set<Path> dirs = new LinkedHashSet<>(config.logDirs());
        dirs.add(config.metadataLogDir());
        for (Path dir : dirs) {
            if (MetaProperties.isFormatted(dir)) {
                throw new ConfigException(
                        "Log directory " + dir + " is already formatted: format only new directories.");
            }
        }
        Path metadataDir = config.metadataLogDir();
        Uuid metadataDirectoryId = Uuid.randomUuid();
        VoterSet voters = null;
        if (initial != null && initial.kind() == InitialVoters.Kind.STANDALONE) {
            voters = new VoterSet(new TreeMap<>()).with(localVoter(config, toJava(metadataDirectoryId)));
        } else if (initial != null && initial.kind() == InitialVoters.Kind.LISTED) {
            voters = parseInitialControllers(
                    initial.voters(), config.controllerListenerNames().get(0));
            VoterSet.Voter self = voters.voter(config.nodeId())
                    .orElseThrow(() -> new ConfigException("--initial-controllers does not name node.id "
                            + config.nodeId() + ": list every initial controller, this one included."));
            if (!self.hasDirectoryId()) {
                throw new ConfigException("--initial-controllers gives node " + config.nodeId() + " no directory id.");
            }
            metadataDirectoryId = new Uuid(
                    self.directoryId().getMostSignificantBits(),
                    self.directoryId().getLeastSignificantBits());
        }
        if (dynamic && Files.exists(MetadataRaftRuntime.storeDir(metadataDir))) {
            throw new ConfigException("The metadata log in " + MetadataRaftRuntime.storeDir(metadataDir)
                    + " exists: format only new directories.");
        }
        for (Path dir : dirs) {
            MetaProperties.write(
                    dir, clusterId, config.nodeId(), dir.equals(metadataDir) ? metadataDirectoryId : Uuid.randomUuid());
        }
        BootstrapScramCredentials.write(metadataDir, scram);
        BootstrapFeatures.write(metadataDir, featureLevels);
        if (dynamic) {
            if (voters != null) {
                MetadataRaftRuntime.writeBootstrapVoters(metadataDir, voters);
            } else {
                Files.createDirectories(MetadataRaftRuntime.storeDir(metadataDir));
            }
        }
        return metadataDirectoryId;
    }

    /** This node as a voter: its id, the metadata dir's directory id, its controller listeners. */
    static VoterSet.Voter localVoter(BrokerConfig config, UUID directoryId) {
        SortedMap<String, VoterSet.Endpoint> endpoints = new TreeMap<>();
        List<String> names = config.controllerListenerNames();
        for (ListenerConfig listener : config.controllerListeners()) {
            ListenerConfig advertised = config.advertisedListeners().stream()
                    .filter(l -> l.name().equals(listener.name()))
                    .findFirst()
                    .orElse(listener);
            endpoints.put(listener.name(), new VoterSet.Endpoint(advertised.advertisedHost(), advertised.port()));
        }
        if (endpoints.isEmpty()) {
            throw new ConfigException("listeners has no listener named in controller.listener.names (" + names
                    + "): a controller needs one, for example CONTROLLER://localhost:9093.");
        }
        return new VoterSet.Voter(config.nodeId(), directoryId, endpoints);
    }

    /** Kafka's {@code --initial-controllers}: {@code id@host:port:directoryId}, comma separated. */
    static VoterSet parseInitialControllers(List<String> entries, String listenerName) {
        VoterSet voters = new VoterSet(new TreeMap<>());
        List<Integer> seen = new ArrayList<>();
        for (String entry : entries) {
            String e = entry.trim();
            int at = e.indexOf('@');
            int lastColon = e.lastIndexOf(':');
            int portColon = lastColon > 0 ? e.lastIndexOf(':', lastColon - 1) : -1;
            int id;
            int port;
            Uuid directoryId;
            try {
                id = Integer.parseInt(e.substring(0, at));
                port = Integer.parseInt(e.substring(portColon + 1, lastColon));
                directoryId = Uuid.fromString(e.substring(lastColon + 1));
            } catch (RuntimeException bad) {
                throw new ConfigException("--initial-controllers entry '" + entry
                        + "' is not ID@HOST:PORT:DIRECTORY_ID, for example 1@localhost:9093:pbvuBlaTTwKRxS5NLJwRFQ.");
            }
            String host = e.substring(at + 1, portColon);
            if (id < 0 || host.isEmpty() || port <= 0 || port > 65535 || seen.contains(id)) {
                throw new ConfigException("--initial-controllers entry '" + entry + "' is not a valid controller"
                        + (seen.contains(id) ? " (node " + id + " is listed twice)." : "."));
            }
            seen.add(id);
            SortedMap<String, VoterSet.Endpoint> endpoints = new TreeMap<>();
            // Kafka's entries carry no listener name: they are the first controller listener's address.
            endpoints.put(listenerName, new VoterSet.Endpoint(host, port));
            voters = voters.with(new VoterSet.Voter(id, toJava(directoryId), endpoints));
        }
        if (voters.isEmpty()) {
            throw new ConfigException("--initial-controllers names no controller.");
        }
        return voters;
    }

    private static UUID toJava(Uuid uuid) {
        return new UUID(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }
}
