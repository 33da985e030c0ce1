package io.varve.tiered.read;

/** Every {@link RemoteLogReaderTest} over the filesystem backend's own files, answered with file ranges. */
class ZeroCopyRemoteLogReaderTest extends RemoteLogReaderTest {

    @Override
    boolean zeroCopy() {
        return true;
    }
}
