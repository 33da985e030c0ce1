package io.varve.metadata.record;

/** Bytes that do not decode to a known metadata record: corrupt, or written by a newer version. */
public final class MetadataRecordFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MetadataRecordFormatException(String message) {
        super(message);
    }
}
