package io.varve.tiered.metadata;

import java.io.IOException;

/** The remote log metadata file is damaged beyond a torn tail; the broker must not guess what it held. */
public class CorruptRemoteLogMetadataException extends IOException {
    private static final long serialVersionUID = 1L;

    public CorruptRemoteLogMetadataException(String message) {
        super(message);
    }
}
