/**
 * Durable file primitives the storage engine builds on: complete positional reads and writes on a
 * {@link java.nio.channels.FileChannel}, atomic replace (temp + fsync + rename + directory fsync),
 * directory fsync and recursive delete. Knows nothing about logs or record formats.
 */
package io.varve.storage.fs;
