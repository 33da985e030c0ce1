package io.varve.broker.raft;

import io.varve.raft.core.message.RaftError;

/**
 * Raft errors by their Kafka codes, and where a response carries each: errors about the request as a whole
 * (a foreign cluster id, a malformed request) go in the top-level error code, as Kafka's Raft client puts
 * them; the rest in the partition's. A response always carries its partition too, with the responder's
 * view of the leader, so nothing is lost either way.
 */
final class WireErrors {
    private WireErrors() {}

    static RaftError fromCode(short code) {
        for (RaftError error : RaftError.values()) {
            if (error.code() == code) {
                return error;
            }
        }
        return RaftError.UNKNOWN_SERVER_ERROR; // a code the core never sends nor understands
    }

    static boolean topLevel(RaftError error) {
        return error == RaftError.INCONSISTENT_CLUSTER_ID || error == RaftError.INVALID_REQUEST;
    }

    static short topLevelCode(RaftError error) {
        return topLevel(error) ? error.code() : RaftError.NONE.code();
    }

    /** The top-level error if there is one, else the partition's. */
    static RaftError decode(short topLevelCode, short partitionCode) {
        return topLevelCode != RaftError.NONE.code() ? fromCode(topLevelCode) : fromCode(partitionCode);
    }
}
