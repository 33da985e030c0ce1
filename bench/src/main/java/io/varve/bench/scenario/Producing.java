package io.varve.bench.scenario;

import java.util.LinkedHashMap;
import java.util.Map;

/** Producer settings the scenarios share; everything not named stays at the client's default. */
final class Producing {

    static final int LINGER_MS = 5;

    private Producing() {
    }

    static Map<String, String> props(String acks) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("acks", acks);
        props.put("linger.ms", Integer.toString(LINGER_MS));
        return props;
    }
}
