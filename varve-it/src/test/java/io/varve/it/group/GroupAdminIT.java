package io.varve.it.group;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.SharedBroker;
import io.varve.it.group.GroupClients.Member;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** kafka-clients' Admin lists, describes and deletes groups of both protocols and manages their offsets. */
class GroupAdminIT {
    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(GroupClients.brokerOverrides());

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) throws Exception {
        return f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void groupsOfBothProtocolsAreListedDescribedAndDeletedOnceEmpty() throws Exception {
        String topic = uniqueTopic("admin-groups");
        createTopic(shared.admin(), topic, 4);
        Admin admin = shared.admin();
        Map<String, Integer> consumed = new ConcurrentHashMap<>();
        Set<String> uncommitted = ConcurrentHashMap.newKeySet();
        Member classic = new Member(
                shared.broker(), GroupClients.memberConfig("admin-classic", "range"), topic, consumed, uncommitted);
        Member consumer = new Member(
                shared.broker(), GroupClients.memberConfig("admin-consumer", "consumer"), topic, consumed, uncommitted);
        try {
            await().atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> classic.owned.size() == 4 && consumer.owned.size() == 4);

            Map<String, GroupListing> listed = new HashMap<>();
            get(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()).forEach(g -> listed.put(g.groupId(), g));
            assertThat(listed.get("admin-classic").type()).contains(GroupType.CLASSIC);
            assertThat(listed.get("admin-classic").groupState()).contains(GroupState.STABLE);
            assertThat(listed.get("admin-consumer").type()).contains(GroupType.CONSUMER);
            assertThat(listed.get("admin-consumer").groupState()).contains(GroupState.STABLE);

            Map<String, ConsumerGroupDescription> described =
                    get(admin.describeConsumerGroups(List.of("admin-classic", "admin-consumer"))
                            .all());
            ConsumerGroupDescription c = described.get("admin-classic");
            assertThat(c.type()).isEqualTo(GroupType.CLASSIC);
            assertThat(c.partitionAssignor()).isEqualTo("range");
            assertThat(c.members())
                    .singleElement()
                    .satisfies(m -> assertThat(m.assignment().topicPartitions()).hasSize(4));
            ConsumerGroupDescription k = described.get("admin-consumer");
            assertThat(k.type()).isEqualTo(GroupType.CONSUMER);
            assertThat(k.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(k.partitionAssignor()).isEqualTo("uniform");
            assertThat(k.groupEpoch()).contains(1);
            assertThat(k.members())
                    .singleElement()
                    .satisfies(m -> assertThat(m.assignment().topicPartitions()).hasSize(4));

            assertThatThrownBy(() -> get(
                            admin.deleteConsumerGroups(List.of("admin-classic")).all()))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(GroupNotEmptyException.class);
            assertThatThrownBy(() ->
                            get(admin.deleteConsumerGroupOffsets("admin-consumer", Set.of(new TopicPartition(topic, 0)))
                                    .all()))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(GroupSubscribedToTopicException.class);
        } finally {
            Member.stopAll(List.of(classic, consumer), Member.Stop.LEAVE);
        }
        get(admin.deleteConsumerGroups(List.of("admin-classic", "admin-consumer"))
                .all());
        assertThatThrownBy(() ->
                        get(admin.deleteConsumerGroups(List.of("admin-classic")).all()))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(GroupIdNotFoundException.class);
        assertThat(get(admin.listConsumerGroupOffsets("admin-consumer").partitionsToOffsetAndMetadata()))
                .isEmpty();
    }

    @Test
    void offsetsOfAnEmptyGroupAreAlteredAndDeletedAndStaticMembersRemoved() throws Exception {
        String topic = uniqueTopic("admin-offsets");
        createTopic(shared.admin(), topic, 2);
        Admin admin = shared.admin();
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        get(admin.alterConsumerGroupOffsets(
                        "admin-simple", Map.of(p0, new OffsetAndMetadata(3), p1, new OffsetAndMetadata(4)))
                .all());
        get(admin.deleteConsumerGroupOffsets("admin-simple", Set.of(p0)).all());
        assertThat(get(admin.listConsumerGroupOffsets("admin-simple").partitionsToOffsetAndMetadata()))
                .containsOnlyKeys(p1);

        Map<String, Object> config = new HashMap<>(GroupClients.memberConfig("admin-static", "range"));
        config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "kept-instance");
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
        Member member =
                new Member(shared.broker(), config, topic, new ConcurrentHashMap<>(), ConcurrentHashMap.newKeySet());
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> member.owned.size() == 2);
        member.stop(Member.Stop.LEAVE); // a static member stays in the group when it closes
        assertThat(get(admin.describeConsumerGroups(List.of("admin-static")).all())
                        .get("admin-static")
                        .members())
                .hasSize(1);
        get(admin.removeMembersFromConsumerGroup(
                        "admin-static",
                        new RemoveMembersFromConsumerGroupOptions(List.of(new MemberToRemove("kept-instance"))))
                .all());
        ConsumerGroupDescription after =
                get(admin.describeConsumerGroups(List.of("admin-static")).all()).get("admin-static");
        assertThat(after.members()).isEmpty();
        assertThat(after.groupState()).isEqualTo(GroupState.EMPTY);
    }
}
