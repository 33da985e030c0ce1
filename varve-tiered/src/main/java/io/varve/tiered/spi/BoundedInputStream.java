package io.varve.tiered.spi;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Reads at most {@code limitBytes} from the wrapped stream, then reports end of stream (ranged reads, multipart parts). */
public final class BoundedInputStream extends FilterInputStream {
    private long remainingBytes;

    public BoundedInputStream(InputStream in, long limitBytes) {
        super(in);
        if (limitBytes < 0) {
            throw new IllegalArgumentException("negative limit " + limitBytes);
        }
        this.remainingBytes = limitBytes;
    }

    @Override
    public int read() throws IOException {
        if (remainingBytes == 0) {
            return -1;
        }
        int b = in.read();
        if (b >= 0) {
            remainingBytes--;
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (remainingBytes == 0) {
            return -1;
        }
        int n = in.read(b, off, (int) Math.min(len, remainingBytes));
        if (n > 0) {
            remainingBytes -= n;
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = in.skip(Math.min(n, remainingBytes));
        remainingBytes -= skipped;
        return skipped;
    }

    @Override
    public int available() throws IOException {
        return (int) Math.min(in.available(), remainingBytes);
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
