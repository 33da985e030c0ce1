package io.varve.storage;

import java.io.IOException;

/**
 * Test seam of the segment swap: called with a step's name before each durable step (flush of the new
 * segments, the manifest write, each rename, the directory fsync, the manifest deletion). A fault that
 * throws there leaves the files as a crash at that point would; the log goes offline and the next load
 * must find the log wholly before or wholly after the swap.
 */
@FunctionalInterface
interface SwapFaults {

    SwapFaults NONE = step -> {};

    void before(String step) throws IOException;
}
