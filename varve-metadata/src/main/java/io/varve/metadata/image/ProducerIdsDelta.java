package io.varve.metadata.image;

import io.varve.metadata.record.ProducerIdsRecord;

/** Producer-id blocks handed out on top of a base {@link ProducerIdsImage}; ids only ever grow. */
public final class ProducerIdsDelta {

    private long nextProducerId;
    private int lastBrokerId = -1;

    ProducerIdsDelta(ProducerIdsImage base) {
        this.nextProducerId = base.nextProducerId();
    }

    public long nextProducerId() {
        return nextProducerId;
    }

    /** The broker that received the latest block. */
    public int lastBrokerId() {
        return lastBrokerId;
    }

    void replay(ProducerIdsRecord record) {
        if (record.nextProducerId() <= nextProducerId) {
            throw new IllegalStateException(
                    "next producer id would go from " + nextProducerId + " back to " + record.nextProducerId());
        }
        nextProducerId = record.nextProducerId();
        lastBrokerId = record.brokerId();
    }

    ProducerIdsImage apply() {
        return new ProducerIdsImage(nextProducerId);
    }
}
