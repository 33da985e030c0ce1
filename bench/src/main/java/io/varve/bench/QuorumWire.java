package io.varve.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;

import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * DescribeQuorum and CreateTopics sent to one node over a fresh socket, with kafka-clients' message classes and no
 * retry or routing of their own: an admin client would send CreateTopics wherever a Metadata answer names the
 * controller, and its back-off would be in the figure. Each call has one timeout for connect and answer.
 */
final class QuorumWire {
    /** One node's view of the quorum. */
    record QuorumView(int leaderId, int leaderEpoch) {
    }

    private static final short DESCRIBE_QUORUM_VERSION = 2;
    private static final short CREATE_TOPICS_VERSION = 7;

    private QuorumWire() {
    }

    static QuorumView describeQuorum(String host, int port, Duration timeout) throws IOException {
        DescribeQuorumRequestData request = new DescribeQuorumRequestData();
        request.topics().add(new DescribeQuorumRequestData.TopicData()
                .setTopicName("__cluster_metadata")
                .setPartitions(java.util.List.of(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0))));
        DescribeQuorumResponseData response = (DescribeQuorumResponseData) exchange(host, port, timeout, request,
                DESCRIBE_QUORUM_VERSION);
        if (response.errorCode() != 0 || response.topics().isEmpty()
                || response.topics().get(0).partitions().isEmpty()) {
            throw new IOException("DescribeQuorum failed: " + Errors.forCode(response.errorCode()));
        }
        DescribeQuorumResponseData.PartitionData p = response.topics().get(0).partitions().get(0);
        // The leader answers without an error, any other replica NOT_LEADER_OR_FOLLOWER with the leader it knows.
        if (p.errorCode() != Errors.NONE.code() && p.errorCode() != Errors.NOT_LEADER_OR_FOLLOWER.code()) {
            throw new IOException("DescribeQuorum failed: " + Errors.forCode(p.errorCode()));
        }
        return new QuorumView(p.leaderId(), p.leaderEpoch());
    }

    /** The topic-level error of a CreateTopics of one partition at replication factor 1. */
    static Errors createTopic(String host, int port, String name, Duration timeout) throws IOException {
        CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs((int) timeout.toMillis());
        request.topics().add(new CreateTopicsRequestData.CreatableTopic()
                .setName(name)
                .setNumPartitions(1)
                .setReplicationFactor((short) 1));
        CreateTopicsResponseData response = (CreateTopicsResponseData) exchange(host, port, timeout, request,
                CREATE_TOPICS_VERSION);
        CreateTopicsResponseData.CreatableTopicResult result = response.topics().find(name);
        return result == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(result.errorCode());
    }

    private static ApiMessage exchange(String host, int port, Duration timeout, ApiMessage request, short version)
            throws IOException {
        ApiKeys api = ApiKeys.forId(request.apiKey());
        short headerVersion = api.requestHeaderVersion(version);
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setCorrelationId(1)
                .setClientId("varve-failover-bench");
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer frame = ByteBuffer.allocate(header.size(cache, headerVersion) + request.size(cache, version));
        ByteBufferAccessor writer = new ByteBufferAccessor(frame);
        header.write(writer, cache, headerVersion);
        request.write(writer, cache, version);
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(frame.capacity());
            out.write(frame.array());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            if (size < 4 || size > 16 * 1024 * 1024) {
                throw new IOException("implausible response size " + size);
            }
            byte[] body = new byte[size];
            in.readFully(body);
            ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(body));
            new ResponseHeaderData(reader, api.responseHeaderVersion(version));
            ApiMessage response = api.messageType.newResponse();
            response.read(reader, version);
            return response;
        }
    }
}
