package io.varve.metadata;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;

/** Acts on each newly committed metadata image (creates logs, updates caches …). */
public interface MetadataPublisher {

    /**
     * Called on the raft thread, in order, once per applied batch of records. Must not block for
     * long: appends wait behind it.
     *
     * @param delta    what changed since the previously published image
     * @param newImage the image after the change
     */
    void onMetadataUpdate(MetadataDelta delta, MetadataImage newImage);

    /** For logs. */
    default String name() {
        return getClass().getSimpleName();
    }
}
