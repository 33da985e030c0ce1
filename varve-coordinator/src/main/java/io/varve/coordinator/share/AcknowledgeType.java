package io.varve.coordinator.share;

/** The acknowledgement kinds of ShareFetch and ShareAcknowledge, with their wire codes. */
public enum AcknowledgeType {
    /** An offset the client found no record at (a compacted or control record): archived. */
    GAP((byte) 0),
    ACCEPT((byte) 1),
    RELEASE((byte) 2),
    REJECT((byte) 3);

    private final byte code;

    AcknowledgeType(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }

    /** The type of a wire code, or null for one Varve does not take (RENEW, code 4, needs ShareFetch v2). */
    public static AcknowledgeType ofCode(byte code) {
        for (AcknowledgeType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return null;
    }
}
