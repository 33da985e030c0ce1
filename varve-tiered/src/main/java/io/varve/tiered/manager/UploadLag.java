package io.varve.tiered.manager;

/** Rolled segments of a partition (or of the broker, summed) not uploaded yet: the upload lag. */
public record UploadLag(long bytes, int segments) {
    public static final UploadLag NONE = new UploadLag(0, 0);

    public UploadLag plus(UploadLag other) {
        return new UploadLag(bytes + other.bytes, segments + other.segments);
    }
}
