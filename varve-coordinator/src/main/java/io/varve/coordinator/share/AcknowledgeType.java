package io.varve.coordinator.share;

/** The acknowledgement kinds of ShareFetch and ShareAcknowledge, with their wire codes. */
public enum AcknowledgeType {
    /** An offset the client found no record at (a compacted or control record): archived. */
    GAP((byte) 0),
    ACCEPT((byte) 1),
    RELEASE((byte) 2),
    REJECT((byte) 3),
    /** Keeps the records acquired, their locks running again from now (KIP-1222; ShareFetch/ShareAcknowledge v2). */
    RENEW((byte) 4);

    private final byte code;

    AcknowledgeType(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }

    /** The type of a wire code, or null for an unknown one. */
    public static AcknowledgeType ofCode(byte code) {
        for (AcknowledgeType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return null;
    }
}
