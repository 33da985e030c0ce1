package io.varve.raft.state;

/** Knows an epoch but no leader and has not voted in it: the state a node starts in. */
public record UnattachedState(int epoch, int votedId) implements EpochState {

    @Override
    public int leaderId() {
        return ElectionState.NONE;
    }

    @Override
    public ElectionState election() {
        return new ElectionState(epoch, votedId, ElectionState.NONE);
    }

    @Override
    public String name() {
        return "Unattached";
    }
}
