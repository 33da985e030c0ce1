package io.varve.metadata.image;

/** The first producer id not yet handed out to any broker. */
public record ProducerIdsImage(long nextProducerId) {

    public static final ProducerIdsImage EMPTY = new ProducerIdsImage(0);

    public ProducerIdsImage {
        if (nextProducerId < 0) {
            throw new IllegalArgumentException("nextProducerId must be >= 0: " + nextProducerId);
        }
    }
}
