/**
 * The broker's side of transparent tiered reads (issue 7): which fetch and ListOffsets lookups go to remote storage
 * (offsets in {@code [logStartOffset, localLogStartOffset)} exist only there), and how a fetch that touches such an
 * offset completes asynchronously with the remote bytes. The reading itself is {@code io.varve.tiered.read}; the
 * Fetch and ListOffsets handlers only call in here.
 */
package io.varve.broker.tiered;
