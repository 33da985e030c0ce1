/**
 * The machinery behind {@link io.varve.raft.RaftNode}: {@link io.varve.raft.impl.RaftDriver} (what the
 * raft thread does) and the delivery of committed entries to listeners. A later issue adds here one
 * handler per message (vote, fetch) and one task per timer, driven by a transport and a clock.
 */
package io.varve.raft.impl;
