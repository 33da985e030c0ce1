/**
 * The broker's side of transparent tiered reads (issue 7): which fetch and ListOffsets lookups go to remote storage
 * (offsets in {@code [logStartOffset, localLogStartOffset)} exist only there), and how a fetch that touches such an
 * offset completes asynchronously with the remote bytes. The reading itself is {@code io.varve.tiered.read}; the
 * Fetch and ListOffsets handlers only call in here. In a cluster (issue 13), {@code TieredLeadership} tells the remote
 * log manager which partitions this broker leads and {@code TieredFollowerBootstrap} is the follower's KIP-405 path
 * (state from the remote tier after OFFSET_MOVED_TO_TIERED_STORAGE).
 */
package io.varve.broker.tiered;
