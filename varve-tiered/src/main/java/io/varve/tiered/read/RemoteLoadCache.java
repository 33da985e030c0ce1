package io.varve.tiered.read;

import com.github.benmanes.caffeine.cache.Cache;
import io.varve.tiered.spi.RemoteStorageException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A bounded cache of values loaded from remote storage, in which concurrent callers of one key share one load and
 * no lock is held during the remote I/O: loads in flight are futures in a map of their own, finished values live in
 * a bounded Caffeine {@link Cache}. A failed load is not cached (the next caller tries again) and is not logged
 * here: the caller decides (the read path has one alarm per outage).
 */
final class RemoteLoadCache<K, V> {

    /** A remote load of one value. */
    @FunctionalInterface
    interface Loader<V> {
        V load() throws RemoteStorageException;
    }

    private final Cache<K, V> values;
    private final ConcurrentHashMap<K, CompletableFuture<V>> loading = new ConcurrentHashMap<>();

    RemoteLoadCache(Cache<K, V> values) {
        this.values = Objects.requireNonNull(values, "values");
    }

    /** The cached value, else the value a load in flight brings, else loaded on the calling thread. */
    V getOrLoad(K key, Loader<V> loader) throws RemoteStorageException {
        // bounded: a second pass only follows a prefetch that its executor refused
        for (int attempt = 0; ; attempt++) {
            V cached = values.getIfPresent(key);
            if (cached != null) {
                return cached;
            }
            CompletableFuture<V> mine = new CompletableFuture<>();
            CompletableFuture<V> existing = loading.putIfAbsent(key, mine);
            if (existing == null) {
                return load(key, mine, loader);
            }
            try {
                return await(existing);
            } catch (RejectedExecutionException e) {
                if (attempt > 0) {
                    throw new RemoteStorageException("remote read of " + key + " could not be scheduled", e, true);
                }
            }
        }
    }

    /** Starts loading {@code key} on {@code executor} unless it is cached or loading; never blocks, drops when busy. */
    void prefetch(K key, Executor executor, Loader<V> loader) {
        if (values.asMap().containsKey(key)) {
            return;
        }
        CompletableFuture<V> mine = new CompletableFuture<>();
        if (loading.putIfAbsent(key, mine) != null) {
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    load(key, mine, loader);
                } catch (RemoteStorageException | RuntimeException e) {
                    // read-ahead is best effort: a demand read of the same bytes reports the failure
                }
            });
        } catch (RejectedExecutionException e) {
            loading.remove(key, mine);
            mine.completeExceptionally(e);
        }
    }

    /** Whether the key's load has finished and its value is still cached. */
    boolean cached(K key) {
        return values.asMap().containsKey(key);
    }

    /** Whether the key is cached or loading. */
    boolean contains(K key) {
        return values.asMap().containsKey(key) || loading.containsKey(key);
    }

    /** The bounded cache of finished values. */
    Cache<K, V> values() {
        return values;
    }

    private V load(K key, CompletableFuture<V> mine, Loader<V> loader) throws RemoteStorageException {
        try {
            V cached = values.getIfPresent(key); // a load may have finished between our miss and our claim
            V value = cached != null ? cached : loader.load();
            if (cached == null) {
                values.put(key, value);
            }
            mine.complete(value);
            return value;
        } catch (RemoteStorageException | RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            loading.remove(key, mine);
        }
    }

    private static <V> V await(CompletableFuture<V> future) throws RemoteStorageException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemoteStorageException("interrupted while waiting for a remote read", e, true);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RemoteStorageException rse) {
                throw rse;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new RemoteStorageException("remote read failed: " + cause, cause, true);
        }
    }
}
