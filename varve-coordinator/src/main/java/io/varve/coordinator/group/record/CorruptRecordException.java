package io.varve.coordinator.group.record;

/** A {@code __consumer_offsets} record this version cannot decode: loading stops rather than guess. */
public final class CorruptRecordException extends RuntimeException {
    public CorruptRecordException(String message) {
        super(message);
    }
}
