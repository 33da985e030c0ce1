package io.varve.broker.replica;

import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * Hands out producer ids from blocks allocated through the metadata log, so ids never repeat across restarts.
 * The next block is requested only when the current one is used up.
 */
public final class ProducerIdManager {
    private final IntFunction<CompletableFuture<Long>> blockAllocator;
    private final int blockSize;
    private long nextId = -1;
    private long blockEnd = -1;
    private CompletableFuture<Void> pendingBlock;

    /** {@code blockAllocator} takes a block size and returns the first id of a fresh block. */
    public ProducerIdManager(IntFunction<CompletableFuture<Long>> blockAllocator, int blockSize) {
        this.blockAllocator = blockAllocator;
        this.blockSize = blockSize;
    }

    public synchronized CompletableFuture<Long> nextProducerId() {
        if (nextId >= 0 && nextId < blockEnd) {
            return CompletableFuture.completedFuture(nextId++);
        }
        CompletableFuture<Void> block = pendingBlock;
        if (block == null) {
            block = new CompletableFuture<>();
            CompletableFuture<Void> installed = block;
            pendingBlock = block;
            blockAllocator.apply(blockSize).whenComplete((firstId, error) -> {
                synchronized (this) {
                    pendingBlock = null;
                    if (error == null) {
                        nextId = firstId;
                        blockEnd = firstId + blockSize;
                    }
                }
                if (error != null) {
                    installed.completeExceptionally(error);
                } else {
                    installed.complete(null);
                }
            });
        }
        return block.thenCompose(v -> nextProducerId());
    }
}
