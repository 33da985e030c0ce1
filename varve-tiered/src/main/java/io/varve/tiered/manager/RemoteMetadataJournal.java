package io.varve.tiered.manager;

import io.varve.tiered.metadata.RemoteLogMetadataCodec;
import io.varve.tiered.metadata.RemoteLogMetadataEvent;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentStateChanged;
import io.varve.tiered.metadata.RemoteLogMetadataStore;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.RemoteSegmentState;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;

/**
 * The replicated remote log metadata of a cluster: every lifecycle event of a remote segment is also a small object
 * in the remote tier itself, next to the partition's segments ({@code <partition>/metadata/<start>-<id>.<state>}),
 * written <em>before</em> the broker's local {@link RemoteLogMetadataStore} records it. The remote tier is shared by
 * every broker and outlives all of them, so it is the truth; each broker's store is a cache of it that
 * {@link #sync} brings up to date (a new leader before it uploads, a follower before it frees local segments).
 *
 * <p>Objects of one segment: {@code copy_started} (the full metadata), then {@code copy_finished} or
 * {@code delete_started}; DELETE_SEGMENT_FINISHED removes them, {@code copy_started} first. A segment's state is the
 * furthest marker present, so a late {@code copy_finished} of a deposed leader never revives a segment a new leader
 * began deleting; markers without {@code copy_started} are the rest of a finished deletion (strays).
 */
final class RemoteMetadataJournal {
    static final String COPY_STARTED = "copy_started";
    static final String COPY_FINISHED = "copy_finished";
    static final String DELETE_STARTED = "delete_started";

    private final RemoteStorage storage;
    private final LongSupplier clockMs;

    RemoteMetadataJournal(RemoteStorage storage, LongSupplier clockMs) {
        this.storage = storage;
        this.clockMs = clockMs;
    }

    /** Journals {@code event} of {@code segment} (any state of it: it names the objects). */
    void publish(RemoteSegmentMetadata segment, RemoteLogMetadataEvent event) throws RemoteStorageException {
        TopicIdPartition partition = segment.topicIdPartition();
        String base = baseName(segment.startOffset(), segment.segmentId());
        if (event instanceof SegmentAdded) {
            storage.putMetadata(partition, base + "." + COPY_STARTED, RemoteLogMetadataCodec.encode(event));
            return;
        }
        RemoteSegmentState state = ((SegmentStateChanged) event).newState();
        switch (state) {
            case COPY_SEGMENT_STARTED -> {} // only ever added
            case COPY_SEGMENT_FINISHED, DELETE_SEGMENT_STARTED ->
                storage.putMetadata(partition, base + "." + suffix(state), RemoteLogMetadataCodec.encode(event));
            case DELETE_SEGMENT_FINISHED -> {
                storage.deleteMetadata(partition, base + "." + COPY_STARTED);
                storage.deleteMetadata(partition, base + "." + COPY_FINISHED);
                storage.deleteMetadata(partition, base + "." + DELETE_STARTED);
            }
        }
    }

    /**
     * Brings the store's view of {@code partition} to the journal's: segments journaled but unknown locally are added
     * in their journaled state, known ones move forward to it, and local ones the journal no longer has (another
     * broker finished deleting them) are forgotten. The metadata object of a segment is read only when the store does
     * not know the segment yet, so a follower's periodic sync costs one listing.
     *
     * @return the strays found (markers of a finished deletion), for a leader to remove
     */
    List<String> sync(RemoteLogMetadataStore store, TopicIdPartition partition)
            throws RemoteStorageException, IOException {
        Map<Uuid, RemoteSegmentMetadata> local = new HashMap<>();
        for (RemoteSegmentMetadata m : store.read(c -> c.segments(partition))) {
            local.put(m.segmentId().id(), m);
        }
        List<String> strays = new ArrayList<>();
        Map<Uuid, RemoteSegmentState> journaled = new HashMap<>();
        for (Map.Entry<String, EnumSet<RemoteSegmentState>> e :
                group(storage.listMetadata(partition)).entrySet()) {
            String base = e.getKey();
            EnumSet<RemoteSegmentState> markers = e.getValue();
            Uuid id = idOf(base);
            if (!markers.contains(RemoteSegmentState.COPY_SEGMENT_STARTED)) {
                for (RemoteSegmentState s : markers) {
                    strays.add(base + "." + suffix(s));
                }
                continue;
            }
            RemoteSegmentState state = furthest(markers);
            journaled.put(id, state);
            RemoteSegmentMetadata known = local.get(id);
            if (known == null) {
                Optional<byte[]> body = storage.getMetadata(partition, base + "." + COPY_STARTED);
                if (body.isEmpty()) {
                    continue; // deleted between the listing and now
                }
                RemoteLogMetadataEvent added = RemoteLogMetadataCodec.decode(ByteBuffer.wrap(body.get()));
                if (!(added instanceof SegmentAdded)) {
                    throw new IllegalStateException("journal object " + base + " does not hold a SegmentAdded");
                }
                known = store.append(added);
            }
            moveForward(store, known, state);
        }
        for (RemoteSegmentMetadata m : local.values()) {
            if (!journaled.containsKey(m.segmentId().id())) {
                moveForward(store, m, RemoteSegmentState.DELETE_SEGMENT_STARTED);
                store.append(new SegmentStateChanged(
                        m.segmentId(), RemoteSegmentState.DELETE_SEGMENT_FINISHED, clockMs.getAsLong()));
            }
        }
        return strays;
    }

    /** Removes markers {@link #sync} reported as strays. */
    void removeStrays(TopicIdPartition partition, List<String> strays) throws RemoteStorageException {
        for (String name : strays) {
            storage.deleteMetadata(partition, name);
        }
    }

    private void moveForward(RemoteLogMetadataStore store, RemoteSegmentMetadata known, RemoteSegmentState target)
            throws IOException {
        if (known.state().ordinal() < target.ordinal() && RemoteSegmentState.isLegalTransition(known.state(), target)) {
            store.append(new SegmentStateChanged(known.segmentId(), target, clockMs.getAsLong()));
        }
    }

    /** Marker names grouped by segment ({@code <start>-<id>}), in offset order; unknown names are ignored. */
    static TreeMap<String, EnumSet<RemoteSegmentState>> group(List<String> names) {
        TreeMap<String, EnumSet<RemoteSegmentState>> groups = new TreeMap<>();
        for (String name : names) {
            int dot = name.lastIndexOf('.');
            if (dot <= 0) {
                continue;
            }
            Optional<RemoteSegmentState> state = stateOf(name.substring(dot + 1));
            if (state.isPresent()) {
                groups.computeIfAbsent(name.substring(0, dot), k -> EnumSet.noneOf(RemoteSegmentState.class))
                        .add(state.get());
            }
        }
        return groups;
    }

    static RemoteSegmentState furthest(EnumSet<RemoteSegmentState> markers) {
        RemoteSegmentState result = RemoteSegmentState.COPY_SEGMENT_STARTED;
        for (RemoteSegmentState s : markers) {
            if (s.ordinal() > result.ordinal()) {
                result = s;
            }
        }
        return result;
    }

    static String baseName(long startOffset, RemoteSegmentId id) {
        return String.format("%020d", startOffset) + "-" + id.id();
    }

    private static Uuid idOf(String baseName) {
        return Uuid.fromString(baseName.substring(baseName.indexOf('-') + 1));
    }

    private static String suffix(RemoteSegmentState state) {
        return switch (state) {
            case COPY_SEGMENT_STARTED -> COPY_STARTED;
            case COPY_SEGMENT_FINISHED -> COPY_FINISHED;
            case DELETE_SEGMENT_STARTED -> DELETE_STARTED;
            case DELETE_SEGMENT_FINISHED -> throw new IllegalArgumentException("no marker for " + state);
        };
    }

    private static Optional<RemoteSegmentState> stateOf(String suffix) {
        return switch (suffix) {
            case COPY_STARTED -> Optional.of(RemoteSegmentState.COPY_SEGMENT_STARTED);
            case COPY_FINISHED -> Optional.of(RemoteSegmentState.COPY_SEGMENT_FINISHED);
            case DELETE_STARTED -> Optional.of(RemoteSegmentState.DELETE_SEGMENT_STARTED);
            default -> Optional.empty();
        };
    }
}
