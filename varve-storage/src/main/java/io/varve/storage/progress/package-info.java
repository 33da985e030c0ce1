/**
 * Progress lines for long work (recovery of a crashed log dir, a long compaction, a catching-up follower, a tiered
 * upload backlog): one shared {@link io.varve.storage.progress.ProgressReporter}. It lives in the lowest module so that
 * storage, tiered storage and the broker use the same one; it knows nothing of what it measures.
 */
package io.varve.storage.progress;
