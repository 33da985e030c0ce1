package io.varve.coordinator.group.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class StreamsGroupRecordSerdeTest {
    private static final StreamsGroupValue.Topology TOPOLOGY = new StreamsGroupValue.Topology(
            3,
            List.of(new StreamsGroupValue.Subtopology(
                    "0",
                    List.of("a", "b"),
                    List.of("in-.*"),
                    List.of(new StreamsGroupValue.TopicInfo("app-store-changelog", 0, (short) 3, Map.of("k", "v"))),
                    List.of("app-rep"),
                    List.of(new StreamsGroupValue.TopicInfo("app-rep2", 6, (short) -1, Map.of())),
                    List.of(new StreamsGroupValue.CopartitionGroup(
                            List.of((short) 0, (short) 1), List.of(), List.of((short) 0))))));

    private static StreamsGroupValue.Tasks tasks(int... partitions) {
        Set<Integer> ps = new TreeSet<>();
        for (int p : partitions) {
            ps.add(p);
        }
        return new StreamsGroupValue.Tasks(Map.of("0", ps), Map.of("1", Set.of(9)), Map.of());
    }

    private static StreamsGroupValue value() {
        StreamsGroupValue.Member m = new StreamsGroupValue.Member(
                "m1",
                "instance-1",
                null,
                "client",
                "/127.0.0.1",
                30_000,
                3,
                "process-1",
                new StreamsGroupValue.Endpoint("host", 7070),
                Map.of("zone", "a"),
                7,
                6,
                (byte) 1,
                tasks(0, 1),
                Map.of("0", Set.of(2)));
        StreamsGroupValue.Member bare = new StreamsGroupValue.Member(
                "m2", null, "rack", "", "", 1, 3, "process-2", null, Map.of(), 7, 7, (byte) 0, tasks(), Map.of());
        return new StreamsGroupValue(8, 7, 12, -42L, TOPOLOGY, List.of(m, bare), Map.of("m1", tasks(0, 1, 2)));
    }

    @Test
    void aStreamsGroupRoundTripsWithEveryField() {
        StreamsGroupValue v = value();
        GroupRecord decoded = GroupRecordSerde.decode(GroupRecordSerde.streamsGroup("app", v));
        assertThat(decoded).isEqualTo(new GroupRecord.StreamsGroup("app", v));
    }

    @Test
    void aGroupWithoutTopologyAndATombstoneRoundTrip() {
        StreamsGroupValue empty = new StreamsGroupValue(1, 0, 0, 0, null, List.of(), Map.of());
        assertThat(((GroupRecord.StreamsGroup) GroupRecordSerde.decode(GroupRecordSerde.streamsGroup("g", empty)))
                        .value())
                .isEqualTo(empty);
        assertThat(((GroupRecord.StreamsGroup) GroupRecordSerde.decode(GroupRecordSerde.streamsGroup("g", null)))
                        .value())
                .isNull();
    }

    /** The same group, its client tags and target assignment inserted in the given key order. */
    private static StreamsGroupValue inserted(List<String> order) {
        Map<String, String> tags = new LinkedHashMap<>();
        Map<String, StreamsGroupValue.Tasks> target = new LinkedHashMap<>();
        for (String k : order) {
            tags.put(k, "v-" + k);
            target.put("member-" + k, tasks(k.charAt(0) - 'a'));
        }
        StreamsGroupValue.Member m = new StreamsGroupValue.Member(
                "m", null, null, "", "", 1, 0, "p", null, tags, 1, 0, (byte) 0, tasks(), Map.of());
        return new StreamsGroupValue(1, 1, 1, 0, null, List.of(m), target);
    }

    @Test
    void equalGroupsEncodeToEqualBytesWhateverTheMapOrder() {
        List<String> keys = List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j");
        List<String> reversed = new ArrayList<>(keys);
        Collections.reverse(reversed);
        StreamsGroupValue forward = inserted(keys);
        StreamsGroupValue backward = inserted(reversed);
        assertThat(backward).isEqualTo(forward);
        assertThat(GroupRecordSerde.streamsGroup("app", backward))
                .isEqualTo(GroupRecordSerde.streamsGroup("app", forward));
    }

    @Test
    void aStreamsGroupKeyIsDistinctFromAConsumerGroupKeyOfTheSameId() {
        assertThat(GroupRecordSerde.streamsGroup("g", null).key())
                .isNotEqualTo(GroupRecordSerde.consumerGroup("g", null).key());
    }
}
