package io.varve.metadata.controller;

import io.varve.metadata.record.MetadataRecord;
import java.util.List;

/**
 * What a controller operation decided: the records to append (atomically, as one batch) and the
 * response to give once they are committed.
 */
public record ControllerResult<T>(List<MetadataRecord> records, T response) {

    public ControllerResult {
        records = List.copyOf(records);
    }

    public static <T> ControllerResult<T> of(List<MetadataRecord> records, T response) {
        return new ControllerResult<>(records, response);
    }

    public static <T> ControllerResult<T> withoutRecords(T response) {
        return new ControllerResult<>(List.of(), response);
    }
}
