package io.varve.tiered.spi;

import static io.varve.tiered.metadata.Segments.segment;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import org.junit.jupiter.api.Test;

class ObjectKeysTest {
    @Test
    void keysFollowPrefixTopicIdPartitionPaddedOffsetSegmentIdSuffix() {
        RemoteSegmentMetadata m = segment(123, 456);
        String id = m.segmentId().id().toString();
        assertThat(new ObjectKeys("/tiered/").logKey(m))
                .isEqualTo("tiered/orders-AAAAAAAAAAAAAAAAAAAAAQ/3/00000000000000000123-" + id + ".log");
        assertThat(new ObjectKeys("").indexKey(m, IndexType.TIMESTAMP))
                .isEqualTo("orders-AAAAAAAAAAAAAAAAAAAAAQ/3/00000000000000000123-" + id + ".timeindex");
        assertThat(new ObjectKeys(null).partitionPrefix(m.topicIdPartition()))
                .isEqualTo("orders-AAAAAAAAAAAAAAAAAAAAAQ/3/");
    }
}
