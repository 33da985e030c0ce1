package io.varve.broker.protocol;

import io.varve.security.Principal;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.DefaultPrincipalData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * A principal as an Envelope carries it (KIP-590's {@code request_principal}), in the layout Kafka's default principal
 * builder writes: a two-byte version, then DefaultPrincipalData (type, name, whether a delegation token authenticated
 * it) at that version. A controller reads it back to authorize the forwarded request as the client, not the broker.
 */
public final class PrincipalBytes {
    private static final short VERSION = 0;

    private PrincipalBytes() {}

    public static byte[] write(Principal principal) {
        DefaultPrincipalData data = new DefaultPrincipalData()
                .setType(principal.type())
                .setName(principal.name())
                .setTokenAuthenticated(principal.tokenAuthenticated());
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(2 + data.size(cache, VERSION));
        buffer.putShort(VERSION);
        data.write(new ByteBufferAccessor(buffer), cache, VERSION);
        return buffer.array();
    }

    /** The principal in {@code bytes}; an {@link InvalidFrameException} when they are not one. */
    public static Principal read(byte[] bytes) {
        if (bytes == null || bytes.length < 2) {
            throw new InvalidFrameException("the Envelope carries no principal");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        short version = buffer.getShort();
        if (version < DefaultPrincipalData.LOWEST_SUPPORTED_VERSION
                || version > DefaultPrincipalData.HIGHEST_SUPPORTED_VERSION) {
            throw new InvalidFrameException("the Envelope's principal has unknown version " + version);
        }
        try {
            DefaultPrincipalData data = new DefaultPrincipalData(new ByteBufferAccessor(buffer), version);
            return new Principal(data.type(), data.name(), data.tokenAuthenticated());
        } catch (RuntimeException e) {
            throw new InvalidFrameException("the Envelope's principal cannot be read: " + e.getMessage());
        }
    }
}
