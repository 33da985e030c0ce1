package io.varve.coordinator.group.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.assignor.PartitionAssignor.MemberSpec;
import io.varve.coordinator.group.assignor.PartitionAssignor.Spec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class RangeAssignorTest {
    private static final Uuid T1 = new Uuid(1, 1);
    private static final Uuid T2 = new Uuid(2, 2);

    @Test
    void eachTopicIsSplitIntoContiguousRangesTheFirstMembersTakingTheRemainder() {
        Map<String, Map<Uuid, Set<Integer>>> a = new RangeAssignor()
                .assign(new Spec(
                        List.of(
                                new MemberSpec("a", null, null, Set.of(T1, T2)),
                                new MemberSpec("b", null, null, Set.of(T1, T2)),
                                new MemberSpec("c", null, null, Set.of(T1))),
                        Map.of(T1, 7, T2, 3),
                        Map.of()));
        assertThat(a.get("a")).containsEntry(T1, Set.of(0, 1, 2)).containsEntry(T2, Set.of(0, 1));
        assertThat(a.get("b")).containsEntry(T1, Set.of(3, 4)).containsEntry(T2, Set.of(2));
        assertThat(a.get("c")).containsOnlyKeys(T1).containsEntry(T1, Set.of(5, 6));
    }
}
