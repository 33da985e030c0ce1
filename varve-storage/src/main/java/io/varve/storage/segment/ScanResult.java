package io.varve.storage.segment;

/**
 * What a scan of a segment found.
 *
 * @param validBytes size of the prefix made of whole valid batches
 * @param nextOffset offset after the last valid batch (the segment's base offset when it has none)
 * @param stop       why the scan ended; anything but END means bytes past validBytes are not valid batches
 * @param stopReason detail for logs when stop is not END
 */
public record ScanResult(int validBytes, long nextOffset, BatchHeaderScanner.Stop stop, String stopReason) {

    public boolean reachedEnd() {
        return stop == BatchHeaderScanner.Stop.END;
    }
}
