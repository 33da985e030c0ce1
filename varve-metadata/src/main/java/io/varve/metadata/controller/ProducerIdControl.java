package io.varve.metadata.controller;

import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ProducerIdsRecord;
import java.util.List;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownServerException;

/** Hands out blocks of producer ids; a block is never handed out twice. Pure. */
public final class ProducerIdControl {

    /**
     * @return the first id of a fresh block of {@code blockSize} ids, and the record that reserves it
     */
    public ControllerResult<Long> allocate(MetadataImage image, int brokerId, int blockSize) {
        if (brokerId < 0) {
            throw new InvalidRequestException("Invalid broker id " + brokerId);
        }
        if (blockSize <= 0) {
            throw new InvalidRequestException("Producer id block size must be > 0, got " + blockSize);
        }
        long firstProducerId = image.producerIds().nextProducerId();
        if (firstProducerId > Long.MAX_VALUE - blockSize) {
            throw new UnknownServerException("Exhausted all producerIds as the next block's end producerId "
                    + "would exceed the long type limit");
        }
        return ControllerResult.of(
                List.of(new ProducerIdsRecord(brokerId, firstProducerId + blockSize)), firstProducerId);
    }
}
