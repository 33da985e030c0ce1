/**
 * The broker's wire seam: request frames read into a header and kafka-clients' generated messages
 * ({@link io.varve.broker.protocol.RequestParser}), responses serialised from them
 * ({@link io.varve.broker.protocol.ResponseWriter}), and the record sets those messages carry
 * ({@link io.varve.broker.protocol.WireRecords}; {@link io.varve.broker.protocol.FileSliceRecords} for zero-copy
 * fetches). The only broker package that names kafka-clients' record classes; the records inside batches are
 * {@code io.varve.storage.records}' business.
 */
package io.varve.broker.protocol;
