package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.replication.AlterPartitionReply;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterPartition (controller side): a partition leader's ISR changes, checked against leader and partition epochs by
 * the controller. Kafka 4 speaks versions 2 (topic ids) and 3 (each member with its broker epoch, KIP-903).
 */
public final class AlterPartitionHandler implements ApiHandler {
    private final QuorumController controller;

    public AlterPartitionHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        AlterPartitionRequestData data = request.body();
        List<PartitionIsr> partitions = new ArrayList<>();
        for (AlterPartitionRequestData.TopicData topic : data.topics()) {
            for (AlterPartitionRequestData.PartitionData p : topic.partitions()) {
                List<IsrMember> isr = new ArrayList<>();
                if (!p.newIsrWithEpochs().isEmpty()) {
                    p.newIsrWithEpochs().forEach(m -> isr.add(new IsrMember(m.brokerId(), m.brokerEpoch())));
                } else {
                    p.newIsr().forEach(m -> isr.add(IsrMember.of(m)));
                }
                partitions.add(new PartitionIsr(
                        topic.topicId(), p.partitionIndex(), p.leaderEpoch(), isr, p.partitionEpoch()));
            }
        }
        return controller
                .alterPartition(new AlterPartitionRequest(data.brokerId(), data.brokerEpoch(), partitions))
                .thenApply(AlterPartitionHandler::response);
    }

    private static ApiMessage response(AlterPartitionReply reply) {
        AlterPartitionResponseData response =
                new AlterPartitionResponseData().setErrorCode(reply.error().code());
        Map<Uuid, AlterPartitionResponseData.TopicData> byTopic = new LinkedHashMap<>();
        for (AlterPartitionReply.PartitionResult r : reply.partitions()) {
            byTopic.computeIfAbsent(r.topicId(), id -> new AlterPartitionResponseData.TopicData().setTopicId(id))
                    .partitions()
                    .add(new AlterPartitionResponseData.PartitionData()
                            .setPartitionIndex(r.partitionId())
                            .setErrorCode(r.error().code())
                            .setLeaderId(r.leader())
                            .setLeaderEpoch(r.leaderEpoch())
                            .setIsr(new ArrayList<>(r.isr()))
                            .setPartitionEpoch(r.partitionEpoch()));
        }
        response.topics().addAll(byTopic.values());
        return response;
    }
}
