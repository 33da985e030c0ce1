package io.varve.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyOffsetMapTest {

    private static ByteBuffer key(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void remembersTheNewestOffsetOfEachKeyAndMinusOneForUnknownKeys() {
        KeyOffsetMap map = new KeyOffsetMap(16);
        map.put(key("a"), 3);
        map.put(key("b"), 4);
        map.put(key("a"), 9);
        map.put(key("a"), 5); // older than what it holds: ignored

        assertThat(map.get(key("a"))).isEqualTo(9);
        assertThat(map.get(key("b"))).isEqualTo(4);
        assertThat(map.get(key("c"))).isEqualTo(-1);
        assertThat(map.size()).isEqualTo(2);
    }

    @Test
    void readingAKeyDoesNotConsumeItsBuffer() {
        KeyOffsetMap map = new KeyOffsetMap(4);
        ByteBuffer key = key("abc");
        map.put(key, 1);
        assertThat(map.get(key)).isEqualTo(1);
        assertThat(key.remaining()).isEqualTo(3);
    }

    @Test
    void holdsAtMostItsLoadFactorOfSlotsAndSaysSoBeforeItIsFull() {
        KeyOffsetMap map = new KeyOffsetMap(100);
        assertThat(map.remaining()).isEqualTo(90);
        for (int i = 0; i < 90; i++) {
            map.put(key("k" + i), i);
        }
        assertThat(map.remaining()).isZero();
        assertThatThrownBy(() -> map.put(key("one more"), 100)).isInstanceOf(IllegalStateException.class);
        map.put(key("k7"), 200); // a known key still updates
        for (int i = 0; i < 90; i++) {
            assertThat(map.get(key("k" + i))).isEqualTo(i == 7 ? 200 : i);
        }

        map.clear();
        assertThat(map.size()).isZero();
        assertThat(map.get(key("k1"))).isEqualTo(-1);
    }

    @Test
    void sizesItselfFromMemoryOrFromTheKeysToHold() {
        assertThat(KeyOffsetMap.slotsFor(128L * 1024 * 1024)).isEqualTo(128 * 1024 * 1024 / 24);
        assertThat(KeyOffsetMap.slotsFor(1)).isEqualTo(2);
        assertThat(KeyOffsetMap.slotsToHold(90)).isGreaterThanOrEqualTo(100);
        assertThat(new KeyOffsetMap(KeyOffsetMap.slotsToHold(1000)).remaining()).isGreaterThanOrEqualTo(1000);
    }
}
