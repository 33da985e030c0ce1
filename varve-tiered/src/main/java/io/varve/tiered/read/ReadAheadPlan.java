package io.varve.tiered.read;

/**
 * Which chunks to load ahead of a sequential reader whose next read starts at byte {@code nextPosition} of a segment:
 * the chunk holding that byte and the {@code depth} chunks after it, continuing into the next segment's first chunks
 * when this segment ends within that window. Pure.
 *
 * @param fromChunk         first chunk of this segment to load (inclusive)
 * @param toChunk           last chunk of this segment to load (inclusive); below {@code fromChunk} when none
 * @param nextSegmentChunks how many chunks of the next segment to load, from its first
 */
record ReadAheadPlan(int fromChunk, int toChunk, int nextSegmentChunks) {

    static ReadAheadPlan of(long nextPosition, long segmentSizeBytes, int chunkBytes, int depth) {
        if (chunkBytes <= 0 || depth < 0 || nextPosition < 0 || segmentSizeBytes < 0) {
            throw new IllegalArgumentException("bad read-ahead: position " + nextPosition + " of " + segmentSizeBytes
                    + " bytes, chunks of " + chunkBytes + ", depth " + depth);
        }
        int chunkCount = (int) ((segmentSizeBytes + chunkBytes - 1) / chunkBytes);
        if (nextPosition >= segmentSizeBytes) {
            return new ReadAheadPlan(0, -1, depth + 1);
        }
        int from = (int) (nextPosition / chunkBytes);
        long wanted = (long) from + depth;
        int to = (int) Math.min(wanted, chunkCount - 1L);
        return new ReadAheadPlan(from, to, (int) (wanted - to));
    }
}
