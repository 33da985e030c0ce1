package io.varve.broker.fetchsession;

import io.varve.broker.fetchsession.SessionPartition.Answer;
import io.varve.broker.fetchsession.SessionPartition.PartitionFetch;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the session cache made of one Fetch request: which partitions to read, which session id the response
 * carries and which of the read partitions it carries.
 */
public final class FetchContext {
    /** The protocol's "no session" id (FetchMetadata.INVALID_SESSION_ID). */
    public static final int NO_SESSION = 0;

    public enum Kind {
        /** No session: read what the request names, answer all of it with session id 0. */
        SESSIONLESS,
        /** A full request that opened a session (or found no slot: then as sessionless). */
        FULL,
        /** An incremental request of a live session: read every partition of the session, answer what changed. */
        INCREMENTAL,
        /** The request is refused as a whole with {@link #error()}. */
        ERROR
    }

    private final Kind kind;
    private final FetchSession session;
    private final List<PartitionFetch> toRead;
    private final Errors error;

    private FetchContext(Kind kind, FetchSession session, List<PartitionFetch> toRead, Errors error) {
        this.kind = kind;
        this.session = session;
        this.toRead = toRead;
        this.error = error;
    }

    static FetchContext sessionless(List<PartitionFetch> toRead) {
        return new FetchContext(Kind.SESSIONLESS, null, toRead, Errors.NONE);
    }

    static FetchContext full(FetchSession session, List<PartitionFetch> toRead) {
        return new FetchContext(Kind.FULL, session, toRead, Errors.NONE);
    }

    static FetchContext incremental(FetchSession session) {
        return new FetchContext(Kind.INCREMENTAL, session, session.fetches(), Errors.NONE);
    }

    static FetchContext error(Errors error) {
        return new FetchContext(Kind.ERROR, null, List.of(), error);
    }

    public Kind kind() {
        return kind;
    }

    /** NONE unless the kind is ERROR. */
    public Errors error() {
        return error;
    }

    /** The partitions to read, in order. */
    public List<PartitionFetch> toRead() {
        return toRead;
    }

    /** The session id the response carries. */
    public int responseSessionId() {
        return session == null ? NO_SESSION : session.id();
    }

    /**
     * Records what the response says of each partition read and returns which of them it carries: all of them
     * unless the request is incremental.
     */
    public boolean[] answered(List<Answer> answers) {
        if (session == null) {
            boolean[] all = new boolean[answers.size()];
            java.util.Arrays.fill(all, true);
            return all;
        }
        return session.answered(answers, kind == Kind.INCREMENTAL);
    }
}
