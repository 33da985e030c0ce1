package io.varve.tiered.spi;

import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;

/**
 * Object key layout shared by every backend:
 * {@code <prefix>/<topic>-<topicId>/<partition>/<startOffset, 20 digits>-<segmentId>.<suffix>} with suffix
 * {@code log} for the segment and {@link IndexType#suffix()} for its indexes. Zero-padded offsets make a listing
 * sort in offset order; the topic id keeps a re-created topic of the same name apart; the segment id keeps
 * retried uploads of the same offsets apart. An empty prefix drops the leading {@code <prefix>/}.
 */
public final class ObjectKeys {
    public static final String LOG_SUFFIX = "log";
    /** Sub-"directory" of a partition holding its metadata objects. */
    public static final String METADATA_DIR = "metadata";

    private final String prefix;

    /** @param prefix key prefix without leading or trailing slash; may be empty */
    public ObjectKeys(String prefix) {
        String p = prefix == null ? "" : prefix;
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        this.prefix = p;
    }

    public String prefix() {
        return prefix;
    }

    /** The directory-like part common to all segments of the partition, ending with a slash. */
    public String partitionPrefix(TopicIdPartition partition) {
        String path = partition.topic() + "-" + partition.topicId() + "/" + partition.partition() + "/";
        return prefix.isEmpty() ? path : prefix + "/" + path;
    }

    /**
     * The key of the partition's metadata object {@code name}: {@code <partition prefix>metadata/<name>}, apart from
     * the segments' keys so that deleting a segment's objects never touches its metadata.
     */
    public String metadataKey(TopicIdPartition partition, String name) {
        return metadataPrefix(partition) + checkedName(name);
    }

    /** The directory-like part common to the partition's metadata objects, ending with a slash. */
    public String metadataPrefix(TopicIdPartition partition) {
        return partitionPrefix(partition) + METADATA_DIR + "/";
    }

    private static String checkedName(String name) {
        if (name.isEmpty() || name.indexOf('/') >= 0 || name.startsWith(".")) {
            throw new IllegalArgumentException("bad remote metadata object name: " + name);
        }
        return name;
    }

    public String logKey(RemoteSegmentMetadata metadata) {
        return key(metadata, LOG_SUFFIX);
    }

    public String indexKey(RemoteSegmentMetadata metadata, IndexType type) {
        return key(metadata, type.suffix());
    }

    private String key(RemoteSegmentMetadata metadata, String suffix) {
        RemoteSegmentId id = metadata.segmentId();
        return partitionPrefix(id.topicIdPartition()) + String.format("%020d", metadata.startOffset()) + "-" + id.id()
                + "." + suffix;
    }
}
