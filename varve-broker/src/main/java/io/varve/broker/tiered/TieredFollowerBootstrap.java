package io.varve.broker.tiered;

import io.varve.broker.replica.Partition;
import io.varve.broker.replica.fetcher.TieredFollowerStart;
import io.varve.tiered.manager.FollowerStart;
import io.varve.tiered.manager.RemoteLogManager;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-405's follower path on this broker: the remote log manager reads, from the remote segment ending right below
 * the leader's local log start, the leader epochs and producer state there; the partition then empties its log,
 * starts it at that segment's end and installs that state ({@code PartitionLog.restoreFollowerStateFromRemote},
 * {@code PartitionLog.extendLogStartIntoRemote}). The
 * follower then fetches on from the leader's local log instead of copying what the remote tier already holds.
 */
public final class TieredFollowerBootstrap implements TieredFollowerStart {
    private static final Logger log = LoggerFactory.getLogger(TieredFollowerBootstrap.class);

    private final RemoteLogManager manager;

    public TieredFollowerBootstrap(RemoteLogManager manager) {
        this.manager = manager;
    }

    @Override
    public boolean startFromRemote(Partition partition, int leaderEpoch, long leaderLocalLogStartOffset) {
        TopicIdPartition tip = new TopicIdPartition(partition.topicId(), partition.topicPartition());
        Optional<FollowerStart> start;
        try {
            start = manager.followerStart(partition.log(), tip, leaderLocalLogStartOffset);
        } catch (RemoteStorageException e) {
            log.info("{}: cannot read the follower's start from the remote tier yet: {}", tip, e.toString());
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (start.isEmpty()) {
            return false;
        }
        FollowerStart s = start.get();
        return partition.startFromRemote(leaderEpoch, s.startOffset(), partitionLog -> {
            partitionLog.restoreFollowerStateFromRemote(s.leaderEpochs(), s.producers());
            partitionLog.extendLogStartIntoRemote(s.remoteLogStartOffset());
        });
    }
}
