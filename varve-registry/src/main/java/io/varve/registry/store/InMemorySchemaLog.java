package io.varve.registry.store;

import java.util.ArrayList;
import java.util.List;

/** A log in memory, for tests and for a registry that need not survive its process. */
public final class InMemorySchemaLog implements SchemaLog {
    private final List<Entry> entries = new ArrayList<>();

    @Override
    public synchronized void append(List<Entry> batch) {
        entries.addAll(batch);
    }

    @Override
    public synchronized long readFrom(long fromOffset, Sink sink) {
        for (int i = (int) fromOffset; i < entries.size(); i++) {
            sink.record(entries.get(i).key(), entries.get(i).value());
        }
        return entries.size();
    }

    public synchronized int size() {
        return entries.size();
    }
}
