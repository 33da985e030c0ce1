package io.varve.broker;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.api.ApiVersionsHandler;
import io.varve.broker.api.DescribeClusterHandler;
import io.varve.broker.api.DroppedResponseFault;
import io.varve.broker.api.FetchHandler;
import io.varve.broker.api.KafkaRequestDispatcher;
import io.varve.broker.api.ListOffsetsHandler;
import io.varve.broker.api.MetadataHandler;
import io.varve.broker.api.OffsetsForLeaderEpochHandler;
import io.varve.broker.api.ProduceHandler;
import io.varve.broker.api.admin.ConfigForwarding;
import io.varve.broker.api.admin.DeleteRecordsHandler;
import io.varve.broker.api.admin.DescribeClientQuotasHandler;
import io.varve.broker.api.admin.DescribeConfigsHandler;
import io.varve.broker.api.admin.DescribeLogDirsHandler;
import io.varve.broker.api.admin.DescribeTopicPartitionsHandler;
import io.varve.broker.api.admin.ListConfigResourcesHandler;
import io.varve.broker.api.quorum.DescribeQuorumHandler;
import io.varve.broker.api.security.DescribeAclsHandler;
import io.varve.broker.api.security.DescribeUserScramCredentialsHandler;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.BrokerConfigLayers;
import io.varve.broker.config.ConfigException;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.config.LogConfigs;
import io.varve.broker.config.RemoteLogSettings;
import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.controller.ForwardingHandler;
import io.varve.broker.group.GroupApis;
import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.broker.group.GroupCoordinatorSettings;
import io.varve.broker.logging.LoggerLevels;
import io.varve.broker.metadata.BrokerLifecycle;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.SnapshotPublisher;
import io.varve.broker.network.ConnectionLimits;
import io.varve.broker.network.ListenerFront;
import io.varve.broker.network.SocketServer;
import io.varve.broker.network.client.NodeClient;
import io.varve.broker.observe.FetchTraffic;
import io.varve.broker.observe.HttpListenerSecurity;
import io.varve.broker.observe.LocalApis;
import io.varve.broker.observe.NodeActions;
import io.varve.broker.observe.NodeView;
import io.varve.broker.quota.ConnectionCreationRates;
import io.varve.broker.quota.RequestQuotas;
import io.varve.broker.registry.SchemaRegistryWiring;
import io.varve.broker.replica.FetchPurgatory;
import io.varve.broker.replica.ProducerIdManager;
import io.varve.broker.replica.ReplicaManager;
import io.varve.broker.security.AclApis;
import io.varve.broker.security.AuthorizationHook;
import io.varve.broker.security.BrokerAuthorizer;
import io.varve.broker.security.DelegationTokenApis;
import io.varve.broker.security.KeystoreReloader;
import io.varve.broker.security.OAuthBearerValidators;
import io.varve.broker.security.ReloadableSslContext;
import io.varve.broker.security.SaslApis;
import io.varve.broker.security.SaslAuthenticator;
import io.varve.broker.security.SecurityConfig;
import io.varve.broker.security.TlsContexts;
import io.varve.broker.telemetry.TelemetryApis;
import io.varve.broker.tiered.TieredFollowerBootstrap;
import io.varve.broker.tiered.TieredLeadership;
import io.varve.broker.tiered.TieredReads;
import io.varve.broker.txn.DescribeProducersHandler;
import io.varve.broker.txn.NodeMarkerChannel;
import io.varve.broker.txn.TransactionCoordinatorRuntime;
import io.varve.broker.txn.TxnApis;
import io.varve.broker.txn.TxnCoordinatorSettings;
import io.varve.broker.txn.TxnHandlers;
import io.varve.http.HttpListener;
import io.varve.http.HttpServer;
import io.varve.http.metrics.NodeMetrics;
import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.snapshot.SnapshotGenerator;
import io.varve.raft.MetadataRaft;
import io.varve.security.Principal;
import io.varve.security.sasl.AuthenticationFailureDelay;
import io.varve.security.sasl.ScramCredential;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import io.varve.tiered.RemoteStorageFactory;
import io.varve.tiered.manager.RemoteLogManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Varve node: by default broker and controller in one process, the metadata log a Raft quorum of one; on the
 * KRaft-style stack also one of several controllers, a broker alone (an observer of the metadata log) or a controller
 * alone ({@code process.roles}). Start-up order: log dirs, metadata replay (which opens the partition logs), the
 * controller and the way to the active one ({@link ControllerWiring}), network, broker registration.
 */
public final class Broker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private LogManager logManager;
    private MetadataLogs metadataLogs;
    private MetadataRaft raft;
    private MetadataLoader loader;
    private ControllerWiring controllerWiring;
    private SnapshotGenerator metadataSnapshots;
    private ExecutorService requestExecutor;
    private FetchPurgatory fetchPurgatory;
    private SocketServer socketServer;
    /** The network layer, created in the background during start-up. */
    private CompletableFuture<SocketServer> network;

    private MetadataCache metadataCache;
    private GroupCoordinatorRuntime groupCoordinator;
    private TransactionCoordinatorRuntime txnCoordinator;
    private NodeMarkerChannel txnMarkerChannel;
    private io.varve.broker.share.CoordinatorShareStateStore shareState;
    /** Null when remote.log.storage.system.enable=false. */
    private RemoteLogManager remoteLogManager;
    /** Fetches and time lookups of offsets only remote storage holds; null with the remote log manager. */
    private TieredReads tieredReads;

    /** The schema registry (varve-registry) and its REST listener; null when it is off. */
    private SchemaRegistryWiring schemaRegistry;

    private volatile boolean closed;
    private ReplicaManager replicaManager;
    /** KIP-227 fetch sessions, shared by every listener's Fetch handler. */
    private io.varve.broker.fetchsession.FetchSessionCache fetchSessions;

    private io.varve.broker.replica.fetcher.ReplicaFetcherManager replicaFetchers;
    /** Retries the partition logs that could not be opened or created. */
    private java.util.concurrent.ScheduledExecutorService logRetry;
    /** Brings the local logs in line with each metadata image. */
    private SnapshotPublisher snapshotPublisher;

    private volatile BrokerLifecycle lifecycle;
    /** The node's metrics: recorded by the request paths, read by the HTTP listener. */
    private final NodeMetrics metrics = new NodeMetrics();
    /** The HTTP listener (/metrics, /health); null when varve.http.listeners is empty or could not be bound. */
    private HttpListener httpListener;
    /** The console's in-process Kafka requests: the request handlers and the ACL check of the Kafka listeners. */
    private LocalApis consoleApis;
    /** Null unless a listener enables OAUTHBEARER. */
    private OAuthBearerValidators oauthBearer;
    /** TLS and authentication of the HTTP listener, and the ACL check its console applies. */
    private io.varve.http.HttpSecurity httpSecurity;

    private io.varve.http.view.ConsoleAuthorization consoleAuthorization;
    /** What happens when the node cannot go on (every log dir failed): by default one ERROR line; the CLI halts. */
    private volatile java.util.function.Consumer<String> fatalStorageFailure = message -> log.error("{}", message);

    /** Sets what the node does when it cannot go on because every log dir failed (the server command halts). */
    public void onFatalStorageFailure(java.util.function.Consumer<String> action) {
        this.fatalStorageFailure = java.util.Objects.requireNonNull(action, "action");
    }

    public Broker(BrokerConfig config) {
        this.config = config;
    }

    public synchronized void start() throws Exception {
        long startNanos = System.nanoTime();
        // Netty's and the protocol classes' one-time initialisation takes hundreds of milliseconds:
        // run it beside log loading and metadata replay.
        network = new CompletableFuture<>();
        Thread networkInit = new Thread(
                () -> {
                    try {
                        ApiKeys.values();
                        network.complete(new SocketServer(
                                new SocketServer.Settings(
                                        config.socketRequestMaxBytes(),
                                        config.connectionsMaxIdleMs(),
                                        config.numNetworkThreads(),
                                        config.socketSendBufferBytes(),
                                        config.socketReceiveBufferBytes()),
                                metrics.network()::busy));
                    } catch (Throwable t) {
                        network.completeExceptionally(t);
                    }
                },
                "varve-network-init");
        networkInit.setDaemon(true);
        networkInit.start();
        config.logWarnings();
        // TLS contexts first: a keystore that cannot be read stops the start before anything else is done
        Map<String, ReloadableSslContext> tlsContexts = new HashMap<>();
        Function<String, ListenerFront> listenerFronts =
                TlsContexts.fronts(config.security(), config.listeners(), tlsContexts);
        httpSecurity = HttpListenerSecurity.from(config, () -> loader.image());
        ConnectionLimits connectionLimits = config.connectionLimits();
        SchemaRegistryWiring.checkConfig(config);
        int nodeId = config.nodeId();
        MetadataLogs.refuseUnformattedDynamicQuorum(config);
        String clusterId = MetaProperties.loadOrFormat(config.logDirs(), nodeId);
        LogConfigs logConfigs = new LogConfigs(config);
        // before the log manager removes its clean-shutdown markers (KIP-966's PreviousBrokerEpoch)
        long previousBrokerEpoch = io.varve.broker.metadata.CleanShutdownEpoch.take(config.logDirs());
        logManager = new LogManager(
                config.logDirs(),
                logConfigs.brokerDefaults(),
                logConfigs.logManagerConfig(),
                System::currentTimeMillis);
        long logsLoadedNanos = System.nanoTime();
        logManager.onLogFlush(metrics.logFlushTimeMs()::observeNanosAsMs);
        logManager.onLogDirFailure(failed -> {
            if (logManager.offlineLogDirs().size() == logManager.logDirs().size()) {
                fatalStorageFailure.accept("every log directory has failed (" + logManager.logDirs()
                        + "); the node stops. Free space or fix the disk, then start it again: it recovers what"
                        + " was written");
            }
        });
        logOpenFileLimit();

        requestExecutor = newRequestExecutor(config.numIoThreads());
        fetchPurgatory = new FetchPurgatory(requestExecutor);
        BrokerConfigLayers brokerConfigLayers = new BrokerConfigLayers(config);
        ReplicaManager replicaManager = this.replicaManager = new ReplicaManager(
                nodeId,
                logManager,
                fetchPurgatory,
                (snapshot, overrides) -> logConfigs.forTopic(brokerConfigLayers
                        .layers(snapshot.dynamicBrokerConfigs(), snapshot.dynamicDefaultBrokerConfigs())
                        .topicValues(overrides)),
                (snapshot, overrides) -> Integer.parseInt(brokerConfigLayers
                        .layers(snapshot.dynamicBrokerConfigs(), snapshot.dynamicDefaultBrokerConfigs())
                        .topicValues(overrides)
                        .getOrDefault("min.insync.replicas", "1")),
                System::currentTimeMillis);
        replicaManager.useReplicaSelector(config.replicaSelector());
        replicaManager.onIsrChange(shrank -> {
            if (shrank) {
                metrics.replicas().isrShrunk();
            } else {
                metrics.replicas().isrExpanded();
            }
        });
        metadataCache = new MetadataCache(nodeId, clusterId);

        metadataLogs = MetadataLogs.open(config, clusterId, tlsContexts);
        raft = metadataLogs.raft();
        loader = new MetadataLoader();
        MetadataRaft metadataLog = raft;
        metadataSnapshots = new SnapshotGenerator(
                config.metadataSnapshotMaxRecordBytes(),
                config.metadataSnapshotMaxIntervalMs(),
                metadataLog::snapshot,
                () -> System.nanoTime() / 1_000_000,
                "metadata-snapshot-" + nodeId);
        loader.attachSnapshotGenerator(metadataSnapshots);
        // after the replay, logs follow each image on a thread of their own, never holding up the Raft loop
        SnapshotPublisher publisher =
                snapshotPublisher = SnapshotPublisher.applyingInBackground(metadataCache, replicaManager);
        loader.installPublisher(publisher);
        KeystoreReloader keystoreReloader = new KeystoreReloader(nodeId, config.security(), tlsContexts, loader::image);
        loader.installPublisher(keystoreReloader);
        raft.register(loader);
        raft.start();
        publisher.replayComplete(loader.image());
        startRemoteLogManager();
        if (remoteLogManager != null && metadataLogs.sharedWithOtherNodes(config)) {
            replicaManager.addLeadershipListener(new TieredLeadership(remoteLogManager));
        }
        if (remoteLogManager != null) {
            tieredReads = TieredReads.start(
                    remoteLogManager, config.originals(), config.logDirs().get(0));
            replicaManager.enableTieredReads(tieredReads);
            tieredReads.reportMetrics(metrics.remoteReads());
        }
        long metadataReadyNanos = System.nanoTime();
        controllerWiring = ControllerWiring.start(config, clusterId, metadataLogs, raft, loader, requestExecutor);
        ControllerCalls controller = controllerWiring.calls;
        if (!config.processRoles().contains("broker")) {
            startControllerOnly(startNanos);
            return;
        }
        startReplication(replicaManager, controller);
        ForwardingHandler forwarded = new ForwardingHandler(controllerWiring.router);
        ProducerIdManager producerIds = new ProducerIdManager(
                blockSize -> controller.allocateProducerIds(
                        nodeId, lifecycle == null ? -1 : lifecycle.brokerEpoch(), blockSize),
                config.producerIdBlockSize());
        schemaRegistry = SchemaRegistryWiring.start(config, metadataCache, replicaManager, controller, loader::image);
        fetchSessions = new io.varve.broker.fetchsession.FetchSessionCache(
                config.fetchSessionCacheSlots(),
                io.varve.broker.fetchsession.FetchSessionCache.EVICTION_MIN_AGE_MS,
                System::currentTimeMillis,
                () -> java.util.concurrent.ThreadLocalRandom.current().nextInt());
        metrics.fetchSessions(fetchSessions);
        ApiRegistry registry = new ApiRegistry();
        ProduceHandler produceHandler;
        ApiVersionsHandler apiVersions = new ApiVersionsHandler(registry, loader::image, clusterId, nodeId);
        registry.register(ApiKeys.API_VERSIONS, 0, 5, apiVersions)
                // Kafka 4.x advertises Produce from v0 for old librdkafka (KAFKA-18659) but handles v3 and up.
                .register(
                        ApiKeys.PRODUCE,
                        0,
                        3,
                        13,
                        DroppedResponseFault.wrap(
                                produceHandler = new ProduceHandler(
                                        metadataCache,
                                        replicaManager,
                                        metrics.traffic(),
                                        schemaRegistry == null ? null : schemaRegistry.validation()),
                                config.testProduceDropResponseEvery()))
                .register(
                        ApiKeys.FETCH,
                        4,
                        18,
                        new FetchHandler(
                                metadataCache,
                                replicaManager,
                                new FetchTraffic(metadataCache, metrics.traffic()),
                                fetchSessions))
                .register(ApiKeys.LIST_OFFSETS, 1, 11, new ListOffsetsHandler(metadataCache, replicaManager))
                .register(
                        ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                        ApiKeys.OFFSET_FOR_LEADER_EPOCH.oldestVersion(),
                        ApiKeys.OFFSET_FOR_LEADER_EPOCH.latestVersion(),
                        new OffsetsForLeaderEpochHandler(metadataCache, replicaManager))
                .register(
                        ApiKeys.METADATA,
                        0,
                        13,
                        new MetadataHandler(metadataCache, controller, config.autoCreateTopicsEnable()))
                .register(ApiKeys.CREATE_TOPICS, 2, 7, forwarded)
                .register(ApiKeys.DELETE_TOPICS, 1, 6, forwarded)
                .register(ApiKeys.UNREGISTER_BROKER, 0, 0, forwarded)
                .register(ApiKeys.UNREGISTER_CONTROLLER, 0, 0, forwarded)
                .register(ApiKeys.DESCRIBE_CLUSTER, 0, 2, new DescribeClusterHandler(metadataCache));
        LoggerLevels loggerLevels = LoggerLevels.detect();
        registry.register(
                        ApiKeys.DESCRIBE_CONFIGS,
                        1,
                        4,
                        new DescribeConfigsHandler(nodeId, brokerConfigLayers, loader::image, loggerLevels))
                .register(
                        ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                        0,
                        1,
                        ConfigForwarding.incremental(forwarded, nodeId, keystoreReloader::check, loggerLevels))
                .register(
                        ApiKeys.ALTER_CONFIGS,
                        0,
                        2,
                        ConfigForwarding.legacy(forwarded, nodeId, keystoreReloader::check))
                .register(ApiKeys.CREATE_PARTITIONS, 0, 3, forwarded)
                .register(ApiKeys.DESCRIBE_LOG_DIRS, 1, 5, new DescribeLogDirsHandler(logManager))
                .register(
                        ApiKeys.ALTER_REPLICA_LOG_DIRS,
                        1,
                        2,
                        new io.varve.broker.api.admin.AlterReplicaLogDirsHandler(logManager, loader::image))
                .register(ApiKeys.UPDATE_FEATURES, 0, 2, forwarded)
                .register(ApiKeys.ELECT_LEADERS, 0, 2, forwarded)
                .register(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, 0, 1, forwarded)
                .register(ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0, 0, forwarded)
                .register(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0, 0, new DescribeTopicPartitionsHandler(loader::image))
                .register(ApiKeys.DELETE_RECORDS, 0, 2, new DeleteRecordsHandler(metadataCache, replicaManager))
                .register(ApiKeys.LIST_CONFIG_RESOURCES, 0, 1, new ListConfigResourcesHandler(loader::image));
        if (metadataLogs.raftRequests() != null || !config.processRoles().contains("controller")) {
            // kafka-metadata-quorum --bootstrap-server: the broker forwards to the active controller, the Raft leader,
            // which describes the whole quorum and makes voter changes (as Kafka's brokers do).
            registry.register(ApiKeys.DESCRIBE_QUORUM, 0, 2, forwarded)
                    .register(ApiKeys.ADD_RAFT_VOTER, 0, 1, forwarded)
                    .register(ApiKeys.REMOVE_RAFT_VOTER, 0, 0, forwarded);
        } else {
            // A lone node without a controller listener is the whole quorum.
            registry.register(
                    ApiKeys.DESCRIBE_QUORUM,
                    0,
                    2,
                    new DescribeQuorumHandler(raft, this::advertisedEndpoints, System::currentTimeMillis));
        }
        groupCoordinator = new GroupCoordinatorRuntime(
                nodeId, GroupCoordinatorSettings.from(config), metadataCache, replicaManager, controller);
        groupCoordinator.useGroupConfigs(new io.varve.broker.group.GroupConfigResolver(
                loader::image, io.varve.broker.group.GroupConfigResolver.bounds(config)));
        groupCoordinator.startup();
        // The transaction coordinator's requests to the other brokers: markers and TxnOffsetCommit's verification.
        NodeClient txnPeers = new NodeClient(
                "varve-broker-" + nodeId + "-txn",
                "varve-txn-peer-client",
                config.socketRequestMaxBytes(),
                64,
                5_000,
                io.varve.broker.network.client.ClientSecurity.forListener(config, interBrokerListenerName()));
        txnCoordinator = new TransactionCoordinatorRuntime(
                nodeId,
                TxnCoordinatorSettings.from(config),
                metadataCache,
                replicaManager,
                controller,
                producerIds,
                groupCoordinator::onTransactionCompleted,
                txnMarkerChannel = new NodeMarkerChannel(metadataCache, interBrokerListenerName(), txnPeers));
        txnCoordinator.startup();
        long coordinatorsReadyNanos = System.nanoTime();
        io.varve.broker.txn.TxnVerificationBatcher txnVerifier = new io.varve.broker.txn.TxnVerificationBatcher(
                nodeId, txnCoordinator, metadataCache, interBrokerListenerName(), txnPeers);
        produceHandler.verifyTransactionsWith(txnVerifier, config.transactionPartitionVerificationEnable());
        TxnApis.register(
                registry,
                txnCoordinator,
                new TxnHandlers(txnCoordinator, producerIds, metadataCache, groupCoordinator::partitionFor),
                new DescribeProducersHandler(metadataCache, replicaManager));
        shareState = io.varve.broker.share.ShareApis.stateStore(
                config,
                nodeId,
                metadataCache,
                replicaManager,
                controller,
                registry,
                interBrokerListenerName(),
                io.varve.broker.network.client.ClientSecurity.forListener(config, interBrokerListenerName()));
        GroupApis.register(
                registry, groupCoordinator, metadataCache, txnCoordinator, txnVerifier, shareState.coordinators());
        io.varve.broker.share.ShareApis.register(
                registry, metadataCache, replicaManager, groupCoordinator, shareState, System::currentTimeMillis);
        io.varve.broker.group.StreamsGroupApis.register(registry, groupCoordinator, controller, () -> loader.image()
                .features()
                .level(io.varve.metadata.controller.feature.SupportedFeatures.STREAMS_VERSION));
        SaslApis.register(registry);
        registry.register(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, 0, 0, forwarded)
                .register(
                        ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
                        0,
                        0,
                        new DescribeUserScramCredentialsHandler(loader::image))
                .register(ApiKeys.DESCRIBE_CLIENT_QUOTAS, 0, 1, new DescribeClientQuotasHandler(loader::image))
                .register(ApiKeys.ALTER_CLIENT_QUOTAS, 0, 1, forwarded);
        AuthorizationHook authorization = authorizationHook();
        DelegationTokenApis.register(
                registry,
                forwarded,
                config.delegationTokens(),
                listener -> config.security().forListener(listener).protocol(),
                authorization == null ? null : authorization.authorizer(),
                loader::image);
        consoleAuthorization =
                HttpListenerSecurity.authorization(authorization == null ? null : authorization.authorizer());
        AclApis.register(registry, authorization != null, forwarded, new DescribeAclsHandler(loader::image));
        consoleApis = new LocalApis(registry, authorization, requestExecutor, interBrokerListenerName());

        new TelemetryApis(loader::image, metrics.clientTelemetry(), System::currentTimeMillis).register(registry);
        for (ApiRegistry.Api api : registry.all()) {
            metrics.requests().register(api.key().id, api.key().name);
        }
        socketServer = network.get();
        socketServer.limitConnections(connectionLimits);
        socketServer.limitConnectionRates(new ConnectionCreationRates(
                loader::image,
                config::maxConnectionCreationRate,
                config.quotaWindowNum(),
                config.quotaWindowSizeMs(),
                System::currentTimeMillis));
        RequestQuotas requestQuotas = new RequestQuotas(
                loader::image,
                config.quotaWindowNum(),
                config.quotaWindowSizeMs(),
                config.numPartitions(),
                System::currentTimeMillis);
        metrics.clientQuotas(requestQuotas);
        long networkReadyNanos = System.nanoTime();
        socketServer.start(
                metadataLogs.requestListeners(config),
                new KafkaRequestDispatcher(
                        registry,
                        apiVersions,
                        requestExecutor,
                        metrics.requests(),
                        saslAuthenticator(),
                        authorization,
                        requestQuotas),
                listenerFronts);

        boolean shared = metadataLogs.sharedWithOtherNodes(config);
        lifecycle = new BrokerLifecycle(
                controller,
                loader,
                new BrokerRegistrationRequest(
                        nodeId,
                        clusterId,
                        Uuid.randomUuid(),
                        advertisedEndpoints(),
                        config.rack(),
                        SupportedFeatures.THIS_BUILD,
                        previousBrokerEpoch),
                config.brokerHeartbeatIntervalMs(),
                // a lone node's partitions have nowhere to move: no controlled shutdown
                shared ? config.brokerSessionTimeoutMs() : 0,
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
        if (shared) {
            // The active controller may be another node, or not elected yet: register in the background, but stop
            // the start if the controller refuses this node (a live broker holds its node.id).
            lifecycle.startInBackground(config.brokerSessionTimeoutMs());
            controllerWiring.finalizeInitialFeatures(config, loader);
        } else {
            lifecycle.start(TimeUnit.SECONDS.toMillis(30));
            controllerWiring.finalizeInitialFeatures(config, loader);
        }
        startHttpListener(nodeId, clusterId);
        long doneNanos = System.nanoTime();
        // Logs a clean start did not open yet open now, behind the requests (a request opens its log on the spot).
        logManager.openDeferredLogsInBackground();
        logRetry = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-log-retry");
            t.setDaemon(true);
            return t;
        });
        logRetry.scheduleWithFixedDelay(
                () -> {
                    try {
                        replicaManager.retryUnavailableLogs();
                    } catch (RuntimeException e) {
                        log.warn("Retrying the partition logs that could not be opened failed", e);
                    }
                },
                1,
                1,
                TimeUnit.SECONDS);
        log.info(
                "Varve node {} of cluster {} started in {} ms (logs {} ms, metadata {} ms, coordinators {} ms, "
                        + "network {} ms, registration {} ms)",
                nodeId,
                clusterId,
                millis(doneNanos - startNanos),
                millis(logsLoadedNanos - startNanos),
                millis(metadataReadyNanos - logsLoadedNanos),
                millis(coordinatorsReadyNanos - metadataReadyNanos),
                millis(networkReadyNanos - coordinatorsReadyNanos),
                millis(doneNanos - networkReadyNanos));
    }

    /**
     * Binds {@code varve.http.listeners}. A listener that was configured and cannot be bound stops the start with one
     * sentence naming the key; the default one only warns, so several nodes on one host start as before.
     */
    private void startHttpListener(int nodeId, String clusterId) {
        metrics.network().threads(config.numNetworkThreads());
        NodeView view = new NodeView(
                nodeId,
                clusterId,
                config.processRoles().contains("controller"),
                metadataCache,
                raft,
                logManager,
                replicaManager,
                groupCoordinator,
                txnCoordinator,
                remoteLogManager,
                () -> lifecycle,
                System::currentTimeMillis);
        view.authorizeConsoleWith(consoleAuthorization);
        metrics.attach(view, config.numIoThreads(), HTTP_LAG_TIMEOUT_MS, config.metricsRefreshMs());
        if (config.httpListeners().isEmpty()) {
            return;
        }
        try {
            httpListener = HttpListener.start(
                    config.httpListeners(),
                    httpSecurity,
                    metrics,
                    metrics.view(),
                    new NodeActions(
                            controllerWiring.calls,
                            config.deleteTopicEnable(),
                            consoleApis,
                            Principal.ANONYMOUS,
                            schemaRegistry == null ? null : schemaRegistry.registry()));
        } catch (HttpServer.BindFailure e) {
            if (config.httpListenersExplicit()) {
                throw new ConfigException("varve.http.listeners: " + e.getMessage() + ".");
            }
            log.warn(
                    "The default HTTP listener {} is not served: {}. Set varve.http.listeners (empty turns it off)",
                    e.endpoint(),
                    e.getMessage());
        }
    }

    /** The metrics of this node (tests, and the replica layer's ISR counters). */
    public NodeMetrics metrics() {
        return metrics;
    }

    /** The port of the {@code index}th entry of varve.http.listeners (tests configure port 0). */
    public int httpPort(int index) {
        return httpListener.boundPort(index);
    }

    /**
     * {@code process.roles=controller}: the controller listener (Raft and the controller's APIs, already served by
     * {@link MetadataLogs}) is all this node serves; no client listener, partitions or coordinators.
     */
    private void startControllerOnly(long startNanos) throws Exception {
        controllerWiring.finalizeInitialFeatures(config, loader);
        log.info(
                "Varve controller {} started in {} ms (controller listener {})",
                config.nodeId(),
                millis(System.nanoTime() - startNanos),
                config.controllerListeners().get(0).name());
    }

    /**
     * Says at start-up how many descriptors segment files may hold under the process's open-file limit, and warns when
     * the logs this node holds would not fit (they still work: the least recently used descriptors are closed and
     * reopened, which costs latency).
     */
    private void logOpenFileLimit() {
        long limit = io.varve.storage.fs.FileHandleBudget.processOpenFileLimit();
        long budget = io.varve.storage.fs.FileHandleBudget.shared().budget();
        int partitions =
                logManager.openLogs().size() + logManager.deferredPartitions().size();
        log.info(
                "Open-file limit {} ({} open now): segment files may hold {} descriptors (one per segment in use),"
                        + " the rest is kept for sockets and other files; {} partition logs",
                limit,
                io.varve.storage.fs.FileHandleBudget.processOpenFileCount(),
                budget,
                partitions);
        if (partitions > budget) {
            log.warn(
                    "This node holds {} partition logs but its open-file limit {} leaves {} descriptors for segment"
                            + " files: when more are in use at once they are closed and reopened, which costs"
                            + " latency, and partitions that find none free answer a retriable error. Raise the"
                            + " limit to at least {} (ulimit -n; LimitNOFILE= for systemd)",
                    partitions,
                    limit,
                    budget,
                    partitions + io.varve.storage.fs.FileHandleBudget.reserveFor(partitions) + 1000);
        }
    }

    /** After the replay reconciled the logs, so a log missing now is one whose topic was deleted. */
    private void startRemoteLogManager() throws java.io.IOException {
        if (!config.remoteLogStorageSystemEnable()) {
            return;
        }
        LogManager logs = logManager;
        if (metadataLogs.sharedWithOtherNodes(config)) {
            RemoteLogSettings.clusterWarning(config).ifPresent(log::warn);
        }
        remoteLogManager = RemoteLogManager.start(
                RemoteLogSettings.managerConfig(config),
                RemoteStorageFactory.create(RemoteLogSettings.storageConfig(config)),
                config.logDirs(),
                logs::openLogs,
                logs::isDeferred,
                this::cleanedUpTo,
                System::currentTimeMillis,
                true,
                // in a cluster only leaders upload, and a topic is deleted when the metadata says so
                metadataLogs.sharedWithOtherNodes(config)
                        ? new RemoteLogManager.ClusterMode(
                                id -> metadataCache.snapshot().topic(id).isPresent())
                        : null);
    }

    /** A compacted log's cleaner checkpoint (offsets below it are deduplicated), for uploads of compacted topics. */
    private long cleanedUpTo(PartitionLog partitionLog) {
        return partitionLog.config().compacts()
                ? logManager.cleaner().checkpoint(partitionLog).orElse(0L)
                : Long.MAX_VALUE;
    }

    /** The authorization hook over the image's ACLs; null without authorizer.class.name. */
    private AuthorizationHook authorizationHook() {
        SecurityConfig.Authorization authorization = config.security().authorization();
        if (authorization == null) {
            return null;
        }
        log.info(
                "Authorizing every request with the ACLs of the metadata log (super users {}, allow.everyone.if.no.acl.found={})",
                authorization.superUsers(),
                authorization.allowEveryoneIfNoAclFound());
        return new AuthorizationHook(new BrokerAuthorizer(
                loader::image, authorization.superUsers(), authorization.allowEveryoneIfNoAclFound()));
    }

    /** The SASL exchanges of the SASL listeners; null when there is none. */
    private SaslAuthenticator saslAuthenticator() {
        boolean anySasl = config.listeners().stream()
                .anyMatch(
                        l -> config.security().forListener(l.name()).protocol().sasl());
        if (!anySasl) {
            return null;
        }
        oauthBearer = OAuthBearerValidators.start(
                config.security(),
                config.listeners().stream().map(ListenerConfig::name).toList(),
                System::currentTimeMillis);
        return new SaslAuthenticator(
                config.security(),
                (user, mechanism) -> loader.image()
                        .scram()
                        .credential(user, mechanism.typeId())
                        .map(c -> new ScramCredential(c.salt(), c.storedKey(), c.serverKey(), c.iterations())),
                config.delegationTokens().credentials(loader::image, System::currentTimeMillis),
                new AuthenticationFailureDelay(
                        config.security().failedAuthenticationDelayMs(),
                        10_000,
                        () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime())),
                oauthBearer);
    }

    /** Where brokers reach each other: {@code inter.broker.listener.name}, else the first broker listener (Kafka's). */
    private String interBrokerListenerName() {
        String named = config.namedInterBrokerListener();
        if (named != null) {
            return named;
        }
        List<String> controllerNames = config.controllerListenerNames();
        return config.listeners().stream()
                .map(ListenerConfig::name)
                .filter(n -> !controllerNames.contains(n))
                .findFirst()
                .orElse("PLAINTEXT");
    }

    private List<Endpoint> advertisedEndpoints() {
        List<String> controllerNames = config.controllerListenerNames();
        List<Endpoint> endpoints = new ArrayList<>();
        for (ListenerConfig l : config.advertisedListeners()) {
            if (controllerNames.contains(l.name())) {
                continue;
            }
            int port = l.port() == 0 ? socketServer.boundPort(l.name()) : l.port();
            endpoints.add(new Endpoint(l.name(), l.advertisedHost(), port, l.securityProtocol()));
        }
        return endpoints;
    }

    private static ExecutorService newRequestExecutor(int threads) {
        AtomicInteger ids = new AtomicInteger();
        return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "varve-request-" + ids.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** The KIP-227 fetch session cache (its counts are Kafka's NumIncrementalFetchSessions …). */
    public io.varve.broker.fetchsession.FetchSessionCache fetchSessions() {
        return fetchSessions;
    }

    /** The port a listener is bound to (tests configure port 0). */
    public int boundPort(String listenerName) {
        return socketServer.boundPort(listenerName);
    }

    /** The schema registry's HTTP port, or -1 when it is off. */
    public int schemaRegistryPort() {
        return schemaRegistry == null ? -1 : schemaRegistry.port();
    }

    public BrokerConfig config() {
        return config;
    }

    /** The partition logs of this node (tests and tools). */
    public LogManager logManager() {
        return logManager;
    }

    /** The remote log manager (tiered storage), or null when remote.log.storage.system.enable=false. */
    public RemoteLogManager remoteLogManager() {
        return remoteLogManager;
    }

    /** The group coordinator: consumer groups, committed offsets and lag. */
    public GroupCoordinatorRuntime groupCoordinator() {
        return groupCoordinator;
    }

    /**
     * Followers fetch from their leaders over the inter-broker listener (addresses from the metadata image), and
     * leaders send ISR changes to the controller, both quoting this broker's epoch once it registered.
     */
    private void startReplication(ReplicaManager replicaManager, ControllerCalls controller) {
        String listener = config.interBrokerListenerName();
        replicaFetchers = new io.varve.broker.replica.fetcher.ReplicaFetcherManager(
                config.nodeId(),
                config.replicaFetcherSettings(),
                Integer.MAX_VALUE,
                brokerId -> metadataCache.snapshot().brokers().stream()
                        .filter(b -> b.nodeId() == brokerId)
                        .findFirst()
                        .flatMap(b -> b.endpoint(listener))
                        .map(e -> java.net.InetSocketAddress.createUnresolved(e.host(), e.port())),
                this::brokerEpoch,
                System::currentTimeMillis,
                io.varve.broker.network.client.ClientSecurity.forListener(config, listener));
        replicaFetchers.useThrottles(replicaManager.throttles());
        if (remoteLogManager != null) {
            replicaFetchers.useTieredFollowerStart(new TieredFollowerBootstrap(remoteLogManager));
        }
        replicaManager.startReplication(
                controller::alterPartition, this::brokerEpoch, replicaFetchers, config.replicaLagTimeMaxMs());
    }

    private long brokerEpoch() {
        BrokerLifecycle current = lifecycle;
        return current == null ? -1 : current.brokerEpoch();
    }

    /** Stops accepting requests, then closes the metadata log and flushes and closes every partition log. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long startNanos = System.nanoTime();
        if (socketServer == null && network != null) {
            socketServer = network.getNow(null);
        }
        if (logRetry != null) {
            logRetry.shutdownNow();
        }
        if (lifecycle != null) {
            lifecycle.close();
        }
        if (raft != null) {
            // Before the listeners close: clients' writes reach the successor through this node meanwhile.
            raft.handOverLeadership(config.quorumTimeouts().electionTimeoutMs() * 4L);
        }
        closeQuietly("HTTP listener", httpListener);
        closeQuietly("network", socketServer);
        closeQuietly("JWK set refresh", oauthBearer);
        closeQuietly("OAUTHBEARER logins", config.security()::closeOutgoingLogins);
        closeQuietly("schema registry", schemaRegistry);
        closeQuietly("metadata apply", snapshotPublisher);
        closeQuietly("replica fetchers", replicaFetchers);
        if (replicaManager != null) {
            replicaManager.close();
        }
        closeQuietly("fetch purgatory", fetchPurgatory);
        if (requestExecutor != null) {
            requestExecutor.shutdown();
            try {
                if (!requestExecutor.awaitTermination(5, TimeUnit.SECONDS)) {
                    requestExecutor.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeQuietly("transaction coordinator", txnCoordinator);
        closeQuietly("group coordinator", groupCoordinator);
        closeQuietly("transaction marker channel", txnMarkerChannel);
        closeQuietly("share state client", shareState);
        closeQuietly("controller", controllerWiring);
        closeQuietly("metadata snapshots", metadataSnapshots);
        closeQuietly("metadata log", raft);
        closeQuietly("controller network", metadataLogs);
        closeQuietly("remote reads", tieredReads);
        closeQuietly("remote log manager", remoteLogManager);
        closeQuietly("log manager", logManager);
        if (logManager != null) {
            io.varve.broker.metadata.CleanShutdownEpoch.recordIfClean(config.logDirs(), brokerEpoch());
        }
        log.info(
                "Varve node {} shut down in {} ms",
                config.nodeId(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    /** How long a scrape waits for the coordinators' consumer lag before it leaves the lag out. */
    private static final long HTTP_LAG_TIMEOUT_MS = 2000;

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static void closeQuietly(String what, AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            log.error("Failed to close the {}", what, e);
        }
    }
}
