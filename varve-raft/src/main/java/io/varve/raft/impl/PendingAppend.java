package io.varve.raft.impl;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** An append waiting for the raft thread: its payloads and the future of its last offset. */
public record PendingAppend(List<byte[]> payloads, CompletableFuture<Long> future) {}
