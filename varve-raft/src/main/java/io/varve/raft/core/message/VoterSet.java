package io.varve.raft.core.message;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The replicas that vote and count for the high watermark (KIP-853's VotersRecord): each voter's id, the
 * directory id of its metadata log directory (the {@code directory.id} of its {@code meta.properties}; the zero
 * uuid when not known, as for a static quorum) and its endpoints by listener name. Encoded as a VOTERS log entry's
 * payload and in the header of every snapshot.
 *
 * <p>An empty set is allowed only as "not known yet": a replica of a dynamic quorum formatted without initial
 * voters learns the set from the leader's log. No VOTERS entry is ever empty.
 */
public record VoterSet(SortedMap<Integer, Voter> voters) {
    /** A voter set larger than this is refused: every replica keeps per-voter state. */
    public static final int MAX_VOTERS = 64;
    /** Listeners one voter may announce. */
    public static final int MAX_ENDPOINTS = 16;
    /** Longest listener name or host, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 255;

    /** The encoding with directory ids and endpoints; the older encoding starts with a positive voter count. */
    private static final int FORMAT_V2 = -2;

    public static final VoterSet EMPTY = new VoterSet(new TreeMap<>());

    /** Where a voter listens: one listener's host and port. */
    public record Endpoint(String host, int port) {
        public Endpoint {
            Objects.requireNonNull(host, "host");
            if (host.isEmpty() || utf8Length(host) > MAX_NAME_BYTES || port < 0 || port > 65535) {
                throw new IllegalArgumentException("bad endpoint " + host + ":" + port);
            }
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /** One voter: the pair (id, directory id) names it (KIP-853's ReplicaKey); endpoints by listener name. */
    public record Voter(int id, UUID directoryId, SortedMap<String, Endpoint> endpoints) {
        public static final UUID NO_DIRECTORY_ID = new UUID(0, 0);

        public Voter {
            if (id < 0) {
                throw new IllegalArgumentException("voter ids must be >= 0: " + id);
            }
            Objects.requireNonNull(directoryId, "directoryId");
            endpoints = Collections.unmodifiableSortedMap(new TreeMap<>(endpoints));
            if (endpoints.size() > MAX_ENDPOINTS) {
                throw new IllegalArgumentException(
                        "voter " + id + " announces more than " + MAX_ENDPOINTS + " listeners");
            }
            for (String name : endpoints.keySet()) {
                if (name.isEmpty() || utf8Length(name) > MAX_NAME_BYTES) {
                    throw new IllegalArgumentException("bad listener name '" + name + "'");
                }
            }
        }

        public Voter(int id, UUID directoryId, Map<String, Endpoint> endpoints) {
            this(id, directoryId, new TreeMap<>(endpoints));
        }

        /** A voter known by id only (a static quorum from {@code controller.quorum.voters}). */
        public static Voter of(int id) {
            return new Voter(id, NO_DIRECTORY_ID, new TreeMap<>());
        }

        public boolean hasDirectoryId() {
            return !NO_DIRECTORY_ID.equals(directoryId);
        }

        /** Whether a request naming {@code otherDirectoryId} names this voter: a zero id on either side matches. */
        public boolean matchesDirectory(UUID otherDirectoryId) {
            return !hasDirectoryId()
                    || NO_DIRECTORY_ID.equals(otherDirectoryId)
                    || directoryId.equals(otherDirectoryId);
        }
    }

    public VoterSet {
        // Sorted, never Map.copyOf: its iteration order changes from one JVM to the next, and a replica's
        // behaviour (the order it sends in) must be a function of its inputs for a seed to replay.
        voters = Collections.unmodifiableSortedMap(new TreeMap<>(voters));
        if (voters.size() > MAX_VOTERS) {
            throw new IllegalArgumentException(
                    "a voter set holds at most " + MAX_VOTERS + " voters: " + voters.keySet());
        }
        for (Map.Entry<Integer, Voter> entry : voters.entrySet()) {
            if (entry.getKey() != entry.getValue().id()) {
                throw new IllegalArgumentException("voter " + entry.getValue() + " filed under " + entry.getKey());
            }
        }
    }

    /** Voters known by id only: no directory ids, no endpoints. */
    public VoterSet(Set<Integer> ids) {
        this(byId(ids));
    }

    private static SortedMap<Integer, Voter> byId(Set<Integer> ids) {
        SortedMap<Integer, Voter> map = new TreeMap<>();
        for (int id : ids) {
            map.put(id, Voter.of(id));
        }
        if (map.isEmpty()) {
            throw new IllegalArgumentException("a voter set named by ids holds at least one voter");
        }
        return map;
    }

    /** The voter ids, ascending. */
    public SortedSet<Integer> ids() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(voters.keySet()));
    }

    public boolean contains(int id) {
        return voters.containsKey(id);
    }

    public Optional<Voter> voter(int id) {
        return Optional.ofNullable(voters.get(id));
    }

    public boolean isEmpty() {
        return voters.isEmpty();
    }

    public int size() {
        return voters.size();
    }

    public int majority() {
        return voters.size() / 2 + 1;
    }

    /** This set with {@code voter} added, or replacing the voter of the same id. */
    public VoterSet with(Voter voter) {
        SortedMap<Integer, Voter> next = new TreeMap<>(voters);
        next.put(voter.id(), voter);
        return new VoterSet(next);
    }

    public VoterSet with(int id) {
        return with(Voter.of(id));
    }

    public VoterSet without(int id) {
        SortedMap<Integer, Voter> next = new TreeMap<>(voters);
        next.remove(id);
        return new VoterSet(next);
    }

    public byte[] encode() {
        int size = 8;
        for (Voter voter : voters.values()) {
            size += 4 + 16 + 4;
            for (Map.Entry<String, Endpoint> e : voter.endpoints().entrySet()) {
                size += 2 + utf8Length(e.getKey()) + 2 + utf8Length(e.getValue().host()) + 4;
            }
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putInt(FORMAT_V2).putInt(voters.size());
        for (Voter voter : voters.values()) {
            buffer.putInt(voter.id())
                    .putLong(voter.directoryId().getMostSignificantBits())
                    .putLong(voter.directoryId().getLeastSignificantBits())
                    .putInt(voter.endpoints().size());
            for (Map.Entry<String, Endpoint> e : voter.endpoints().entrySet()) {
                putString(buffer, e.getKey());
                putString(buffer, e.getValue().host());
                buffer.putInt(e.getValue().port());
            }
        }
        return buffer.array();
    }

    /** Reads either encoding; a set read here is never empty. */
    public static VoterSet decode(ByteBuffer buffer) {
        int first = buffer.getInt();
        if (first > 0) {
            return decodeIdsOnly(buffer, first);
        }
        if (first != FORMAT_V2) {
            throw new IllegalArgumentException("corrupt voter set: format " + first);
        }
        int count = buffer.getInt();
        if (count <= 0 || count > MAX_VOTERS) {
            throw new IllegalArgumentException("corrupt voter set: " + count + " voters");
        }
        SortedMap<Integer, Voter> voters = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            int id = buffer.getInt();
            UUID directoryId = new UUID(buffer.getLong(), buffer.getLong());
            int endpointCount = buffer.getInt();
            if (endpointCount < 0 || endpointCount > MAX_ENDPOINTS) {
                throw new IllegalArgumentException("corrupt voter set: " + endpointCount + " endpoints");
            }
            SortedMap<String, Endpoint> endpoints = new TreeMap<>();
            for (int j = 0; j < endpointCount; j++) {
                String name = getString(buffer);
                endpoints.put(name, new Endpoint(getString(buffer), buffer.getInt()));
            }
            voters.put(id, new Voter(id, directoryId, endpoints));
        }
        return new VoterSet(voters);
    }

    public static VoterSet decode(byte[] payload) {
        return decode(ByteBuffer.wrap(payload));
    }

    /** The first encoding: a count, then ids (entries written before directory ids and endpoints). */
    private static VoterSet decodeIdsOnly(ByteBuffer buffer, int count) {
        if (count > MAX_VOTERS) {
            throw new IllegalArgumentException("corrupt voter set: " + count + " voters");
        }
        Set<Integer> ids = new TreeSet<>();
        for (int i = 0; i < count; i++) {
            ids.add(buffer.getInt());
        }
        return new VoterSet(ids);
    }

    private static void putString(ByteBuffer buffer, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        buffer.putShort((short) bytes.length).put(bytes);
    }

    private static String getString(ByteBuffer buffer) {
        int length = buffer.getShort() & 0xffff;
        if (length > MAX_NAME_BYTES || length > buffer.remaining()) {
            throw new IllegalArgumentException("corrupt voter set: a name of " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
