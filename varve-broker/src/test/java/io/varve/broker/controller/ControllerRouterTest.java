package io.varve.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.api.ApiVersionsHandler;
import io.varve.broker.api.KafkaRequestDispatcher;
import io.varve.broker.api.controller.EnvelopeHandler;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.SocketServer;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataImage;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The router against a real controller listener on loopback (a socket server with an Envelope handler and fake
 * controller handlers), and against a controller in process.
 */
class ControllerRouterTest {
    private static final int CONTROLLER_ID = 1;
    private static final int BROKER_ID = 2;

    private final List<RequestContext> createTopicsSeen = new CopyOnWriteArrayList<>();
    private final AtomicInteger notControllerAnswersLeft = new AtomicInteger();
    private final AtomicInteger heartbeatsSeen = new AtomicInteger();
    private final AtomicInteger leaderId = new AtomicInteger(CONTROLLER_ID);
    private final ApiRegistry controllerApis = new ApiRegistry();
    private ExecutorService requestExecutor;
    private ScheduledExecutorService timer;
    private SocketServer controllerListener;
    private InetSocketAddress controllerAddress;
    private ControllerRouter router;

    @BeforeEach
    void startController() throws Exception {
        controllerApis
                .register(ApiKeys.API_VERSIONS, 0, 4, new ApiVersionsHandler(controllerApis, () -> MetadataImage.EMPTY))
                .register(ApiKeys.CREATE_TOPICS, 2, 7, request -> {
                    createTopicsSeen.add(request);
                    Errors error = notControllerAnswersLeft.getAndDecrement() > 0 ? Errors.NOT_CONTROLLER : Errors.NONE;
                    CreateTopicsRequestData data = request.body();
                    CreateTopicsResponseData response = new CreateTopicsResponseData();
                    data.topics().forEach(t -> response.topics()
                            .add(new CreatableTopicResult()
                                    .setName(t.name())
                                    .setErrorCode(error.code())
                                    .setNumPartitions(t.numPartitions())));
                    return CompletableFuture.completedFuture(response);
                })
                .register(ApiKeys.BROKER_HEARTBEAT, 0, 2, request -> {
                    heartbeatsSeen.incrementAndGet();
                    Errors error = notControllerAnswersLeft.getAndDecrement() > 0 ? Errors.NOT_CONTROLLER : Errors.NONE;
                    return CompletableFuture.completedFuture(new BrokerHeartbeatResponseData()
                            .setErrorCode(error.code())
                            .setIsFenced(false)
                            .setIsCaughtUp(true));
                })
                .register(ApiKeys.ENVELOPE, 0, 0, new EnvelopeHandler(controllerApis));
        requestExecutor = Executors.newFixedThreadPool(2);
        timer = Executors.newSingleThreadScheduledExecutor();
        controllerListener = new SocketServer(new SocketServer.Settings(1 << 20, 60_000, 1, 0, 0));
        controllerListener.start(
                List.of(new ListenerConfig("CONTROLLER", "127.0.0.1", 0, "PLAINTEXT")),
                new KafkaRequestDispatcher(
                        controllerApis,
                        new ApiVersionsHandler(controllerApis, () -> MetadataImage.EMPTY),
                        requestExecutor));
        controllerAddress = new InetSocketAddress("127.0.0.1", controllerListener.boundPort("CONTROLLER"));
    }

    @AfterEach
    void stop() {
        if (router != null) {
            router.close();
        }
        controllerListener.close();
        requestExecutor.shutdownNow();
        timer.shutdownNow();
    }

    private ControllerRouter router(ControllerRouter.LocalController local, long requestTimeoutMs) {
        router = new ControllerRouter(
                BROKER_ID,
                local,
                leaderId::get,
                Map.of(CONTROLLER_ID, controllerAddress)::get,
                timer,
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()),
                new ControllerRouter.Settings(requestTimeoutMs, 1_000, 20),
                1 << 20);
        return router;
    }

    private static RequestContext clientCreateTopics(short version, String topic) {
        CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(5_000);
        data.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName(topic)
                        .setNumPartitions(3)
                        .setReplicationFactor((short) 1));
        return new RequestContext(
                new RequestHeaderData()
                        .setRequestApiKey(ApiKeys.CREATE_TOPICS.id)
                        .setRequestApiVersion(version)
                        .setCorrelationId(77)
                        .setClientId("admin-client"),
                ApiKeys.CREATE_TOPICS,
                version,
                ClientFrames.asRequest(ApiKeys.CREATE_TOPICS, version, data),
                "PLAINTEXT",
                new InetSocketAddress("127.0.0.1", 5555),
                System.nanoTime(),
                io.varve.security.Principal.user("alice"));
    }

    @Test
    void aClientRequestIsForwardedInAnEnvelopeAndAnsweredAtTheClientsVersionAndCorrelation() throws Exception {
        CreateTopicsResponseData answer = (CreateTopicsResponseData)
                router(null, 5_000).forward(clientCreateTopics((short) 5, "t")).get(10, TimeUnit.SECONDS);

        assertThat(answer.topics().find("t").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.topics().find("t").numPartitions()).isEqualTo(3);
        RequestContext seen = createTopicsSeen.get(0);
        assertThat(seen.apiVersion()).isEqualTo((short) 5);
        assertThat(seen.clientId()).isEqualTo("admin-client");
        assertThat(seen.correlationId()).isEqualTo(77);
        assertThat(seen.clientAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        // the controller sees the client, not the broker that forwarded: it authorizes the request as alice
        assertThat(seen.principal()).isEqualTo(io.varve.security.Principal.user("alice"));
    }

    @Test
    void notControllerAnswersAreRetriedUntilTheActiveControllerAnswers() throws Exception {
        notControllerAnswersLeft.set(2);

        CreateTopicsResponseData answer = (CreateTopicsResponseData)
                router(null, 5_000).forward(clientCreateTopics((short) 7, "t")).get(10, TimeUnit.SECONDS);

        assertThat(answer.topics().find("t").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(createTopicsSeen).hasSize(3);
    }

    @Test
    void withNoActiveControllerKnownAForwardedRequestIsAnsweredRequestTimedOutAtTheDeadline() throws Exception {
        leaderId.set(-1);

        CreateTopicsResponseData answer = (CreateTopicsResponseData)
                router(null, 300).forward(clientCreateTopics((short) 7, "t")).get(10, TimeUnit.SECONDS);

        assertThat(Errors.forCode(answer.topics().find("t").errorCode())).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(createTopicsSeen).isEmpty();
    }

    @Test
    void aControllerThatCannotBeReachedIsRetriedAndGivesRequestTimedOutAtTheDeadline() throws Exception {
        ControllerRouter unreachable = router(null, 400);
        controllerListener.close();

        CreateTopicsResponseData answer = (CreateTopicsResponseData)
                unreachable.forward(clientCreateTopics((short) 7, "t")).get(10, TimeUnit.SECONDS);

        assertThat(Errors.forCode(answer.topics().find("t").errorCode())).isEqualTo(Errors.REQUEST_TIMED_OUT);
    }

    @Test
    void aBrokersOwnRequestGoesDirectlyAndNotControllerIsRetried() throws Exception {
        notControllerAnswersLeft.set(1);

        BrokerHeartbeatResponseData answer = (BrokerHeartbeatResponseData) router(null, 5_000)
                .send(
                        ApiKeys.BROKER_HEARTBEAT,
                        new BrokerHeartbeatRequestData().setBrokerId(BROKER_ID).setBrokerEpoch(5))
                .get(10, TimeUnit.SECONDS);

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.isFenced()).isFalse();
        assertThat(heartbeatsSeen).hasValue(2);
    }

    @Test
    void whenThisNodesControllerLeadsRequestsAreHandledInProcessWithoutTheNetwork() throws Exception {
        controllerListener.close(); // nothing may go over the network
        leaderId.set(BROKER_ID);
        ControllerRouter.LocalController local = new ControllerRouter.LocalController() {
            @Override
            public ApiRegistry apis() {
                return controllerApis;
            }

            @Override
            public boolean isActive() {
                return leaderId.get() == BROKER_ID;
            }
        };
        RequestContext request = clientCreateTopics((short) 7, "local");

        CreateTopicsResponseData answer =
                (CreateTopicsResponseData) router(local, 5_000).forward(request).get(10, TimeUnit.SECONDS);

        assertThat(answer.topics().find("local").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(createTopicsSeen).containsExactly(request);
    }
}
