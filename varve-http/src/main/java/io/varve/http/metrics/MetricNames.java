package io.varve.http.metrics;

/**
 * The metric family names, in one place. Kafka's MBeans are named as the Strimzi / Prometheus jmx_exporter
 * {@code kafka-metrics} rules (lowercaseOutputName) turn them into Prometheus names: {@code
 * kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=T} becomes {@code
 * kafka_server_brokertopicmetrics_bytesin_total{topic="T"}}. Consumer lag uses kafka-lag-exporter's names. What Kafka
 * has no MBean for starts with {@code varve_}. Counter names are given without {@code _total}: the exposition adds
 * it. varve-http/README.md has the table.
 */
public final class MetricNames {
    private MetricNames() {}

    // kafka.server:type=BrokerTopicMetrics
    public static final String BYTES_IN = "kafka_server_brokertopicmetrics_bytesin";
    public static final String BYTES_OUT = "kafka_server_brokertopicmetrics_bytesout";
    public static final String MESSAGES_IN = "kafka_server_brokertopicmetrics_messagesin";
    public static final String TOTAL_PRODUCE_REQUESTS = "kafka_server_brokertopicmetrics_totalproducerequests";
    public static final String FAILED_PRODUCE_REQUESTS = "kafka_server_brokertopicmetrics_failedproducerequests";
    public static final String TOTAL_FETCH_REQUESTS = "kafka_server_brokertopicmetrics_totalfetchrequests";
    public static final String REMOTE_FETCH_BYTES = "kafka_server_brokertopicmetrics_remotefetchbytes";
    public static final String REMOTE_LOG_SIZE = "kafka_server_brokertopicmetrics_remotelogsizebytes";
    public static final String REMOTE_COPY_LAG_BYTES = "kafka_server_brokertopicmetrics_remotecopylagbytes";
    public static final String REMOTE_COPY_LAG_SEGMENTS = "kafka_server_brokertopicmetrics_remotecopylagsegments";
    public static final String REMOTE_COPY_BYTES = "kafka_server_brokertopicmetrics_remotecopybytes";
    public static final String REMOTE_COPY_ERRORS = "kafka_server_brokertopicmetrics_remotecopyerrors";
    public static final String REMOTE_DELETE_SEGMENTS = "kafka_server_brokertopicmetrics_remotedeleterequests";
    public static final String REMOTE_COPY_SEGMENTS = "varve_remote_copy_segments";
    public static final String SCHEMA_VALIDATION_SECONDS = "varve_schema_validation_seconds";

    // what serving /metrics costs, measured on the scraping thread
    public static final String SCRAPES = "varve_metrics_scrapes";
    public static final String SCRAPE_CPU_SECONDS = "varve_metrics_scrape_cpu_seconds";

    // kafka.network:type=RequestMetrics
    public static final String REQUESTS = "kafka_network_requestmetrics_requests";
    public static final String REQUEST_ERRORS = "kafka_network_requestmetrics_errors";
    public static final String TOTAL_TIME_MS = "kafka_network_requestmetrics_totaltimems";
    public static final String REQUEST_QUEUE_TIME_MS = "kafka_network_requestmetrics_requestqueuetimems";
    public static final String LOCAL_TIME_MS = "kafka_network_requestmetrics_localtimems";
    public static final String REMOTE_TIME_MS = "kafka_network_requestmetrics_remotetimems";
    public static final String RESPONSE_SEND_TIME_MS = "kafka_network_requestmetrics_responsesendtimems";
    public static final String REQUEST_BYTES = "kafka_network_requestmetrics_requestbytes";
    public static final String RESPONSE_BYTES = "varve_network_requestmetrics_responsebytes";

    // kafka.network:type=SocketServer
    public static final String NETWORK_PROCESSOR_IDLE = "kafka_network_socketserver_networkprocessoravgidle_percent";

    // kafka.log.remote:type=RemoteLogManager (the general rule: domain, type and name lowercased, dots as _)
    public static final String REMOTE_READ_TIME_MS =
            "kafka_log_remote_remotelogmanager_remotelogreaderfetchrateandtimems";
    public static final String REMOTE_CHUNK_LOOKUPS = "varve_remote_chunk_cache_lookups";
    public static final String REMOTE_CHUNK_MISSES = "varve_remote_chunk_cache_misses";
    public static final String REMOTE_CHUNK_HIT_RATIO = "varve_remote_chunk_cache_hit_ratio";

    // kafka.server:type=KafkaRequestHandlerPool
    public static final String REQUEST_HANDLER_IDLE =
            "kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent";

    // kafka.server:type=ReplicaManager
    public static final String PARTITION_COUNT = "kafka_server_replicamanager_partitioncount";
    public static final String LEADER_COUNT = "kafka_server_replicamanager_leadercount";
    public static final String UNDER_REPLICATED = "kafka_server_replicamanager_underreplicatedpartitions";
    public static final String UNDER_MIN_ISR = "kafka_server_replicamanager_underminisrpartitioncount";
    public static final String AT_MIN_ISR = "kafka_server_replicamanager_atminisrpartitioncount";
    public static final String ISR_SHRINKS = "kafka_server_replicamanager_isrshrinks";
    public static final String ISR_EXPANDS = "kafka_server_replicamanager_isrexpands";

    // kafka.controller:type=KafkaController
    public static final String ACTIVE_CONTROLLER = "kafka_controller_kafkacontroller_activecontrollercount";
    public static final String OFFLINE_PARTITIONS = "kafka_controller_kafkacontroller_offlinepartitionscount";
    public static final String GLOBAL_TOPICS = "kafka_controller_kafkacontroller_globaltopiccount";
    public static final String GLOBAL_PARTITIONS = "kafka_controller_kafkacontroller_globalpartitioncount";
    public static final String ACTIVE_BROKERS = "kafka_controller_kafkacontroller_activebrokercount";
    public static final String FENCED_BROKERS = "kafka_controller_kafkacontroller_fencedbrokercount";
    public static final String METADATA_OFFSET = "varve_metadata_last_applied_offset";

    // kafka.log:type=Log and kafka.log:type=LogFlushStats
    public static final String LOG_SIZE = "kafka_log_log_size";
    public static final String LOG_START_OFFSET = "kafka_log_log_logstartoffset";
    public static final String LOG_END_OFFSET = "kafka_log_log_logendoffset";
    public static final String LOG_SEGMENTS = "kafka_log_log_numlogsegments";
    public static final String LOG_FLUSH_TIME_MS = "kafka_log_logflushstats_logflushrateandtimems";

    // kafka.server:type=DelayedOperationPurgatory
    public static final String PURGATORY_SIZE = "kafka_server_delayedoperationpurgatory_purgatorysize";

    // kafka.server:type=FetchSessionCache
    public static final String FETCH_SESSIONS = "kafka_server_fetchsessioncache_numincrementalfetchsessions";
    public static final String FETCH_SESSION_PARTITIONS =
            "kafka_server_fetchsessioncache_numincrementalfetchpartitionscached";
    public static final String FETCH_SESSION_EVICTIONS =
            "kafka_server_fetchsessioncache_incrementalfetchsessionevictions";

    /**
     * kafka.server:type=Produce|Fetch|Request|ControllerMutation,user=U,client-id=C attribute throttle-time (Kafka
     * metrics, not Yammer: the attribute's dashes become underscores, user and client_id are labels).
     */
    public static String quotaThrottleTime(ClientQuotaSource.QuotaType type) {
        return "kafka_server_" + type.group + "_throttle_time";
    }

    /** The same MBeans' byte-rate (Produce, Fetch), request-time (Request) or mutation-rate (ControllerMutation). */
    public static String quotaRate(ClientQuotaSource.QuotaType type) {
        return "kafka_server_" + type.group + "_" + type.rateName;
    }

    // coordinators (Kafka reports these through KafkaMetrics, not MBeans the rules name)
    public static final String GROUPS = "varve_coordinator_groups";
    public static final String GROUP_SHARDS = "varve_coordinator_group_shards";
    public static final String TRANSACTIONS = "varve_coordinator_transactions";
    public static final String TXN_SHARDS = "varve_coordinator_transaction_shards";

    // kafka-lag-exporter
    public static final String GROUP_LAG = "kafka_consumergroup_group_lag";
    public static final String GROUP_LAG_SECONDS = "kafka_consumergroup_group_lag_seconds";
    public static final String GROUP_OFFSET = "kafka_consumergroup_group_offset";
    public static final String GROUP_MAX_LAG = "kafka_consumergroup_group_max_lag";
    public static final String GROUP_MAX_LAG_SECONDS = "kafka_consumergroup_group_max_lag_seconds";
    public static final String GROUP_SUM_LAG = "kafka_consumergroup_group_sum_lag";
    public static final String GROUP_TOPIC_SUM_LAG = "kafka_consumergroup_group_topic_sum_lag";
    public static final String PARTITION_LATEST_OFFSET = "kafka_partition_latest_offset";
    public static final String PARTITION_EARLIEST_OFFSET = "kafka_partition_earliest_offset";
}
