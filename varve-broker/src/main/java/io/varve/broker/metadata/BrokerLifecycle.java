package io.varve.broker.metadata;

import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.cluster.BrokerHeartbeatReply;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import io.varve.metadata.controller.cluster.BrokerRegistrationReply;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's life as a broker of the cluster: registers with the controller, is unfenced by its
 * first heartbeat (it reads the metadata log it shares with the controller, so it is caught up), then
 * heartbeats every {@code broker.heartbeat.interval.ms} so that the controller keeps its session.
 */
public final class BrokerLifecycle implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerLifecycle.class);

    private final QuorumController controller;
    private final MetadataLoader loader;
    private final BrokerRegistrationRequest registration;
    private final long heartbeatIntervalMs;
    private final ScheduledExecutorService heartbeats;
    private volatile long brokerEpoch = -1;
    private volatile boolean fenced = true;

    public BrokerLifecycle(
            QuorumController controller,
            MetadataLoader loader,
            BrokerRegistrationRequest registration,
            long heartbeatIntervalMs) {
        this.controller = Objects.requireNonNull(controller, "controller");
        this.loader = Objects.requireNonNull(loader, "loader");
        this.registration = Objects.requireNonNull(registration, "registration");
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-broker-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Registers and sends the first heartbeat, waiting up to {@code timeoutMs} for each.
     *
     * @throws IllegalStateException if the controller refuses the registration
     */
    public void start(long timeoutMs) throws Exception {
        registerAndHeartbeat(timeoutMs);
        heartbeats.scheduleWithFixedDelay(
                this::heartbeatQuietly, heartbeatIntervalMs, heartbeatIntervalMs, TimeUnit.MILLISECONDS);
    }

    /**
     * With several controllers: registers from the background once this node's own controller leads, trying every
     * heartbeat interval, then heartbeats. Registration is not forwarded to another node's controller yet, so a node
     * whose controller never leads stays unregistered (it serves what the metadata log says, but leads nothing).
     */
    public void startWhenControllerLeads() {
        heartbeats.execute(this::registerOrRetry);
    }

    private void registerOrRetry() {
        try {
            registerAndHeartbeat(heartbeatIntervalMs * 5);
            LOG.info("Broker {} registered with its own controller, the quorum's leader", registration.brokerId());
            heartbeats.scheduleWithFixedDelay(
                    this::heartbeatQuietly, heartbeatIntervalMs, heartbeatIntervalMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("Broker {} not registered yet: {}", registration.brokerId(), e.toString());
            try {
                heartbeats.schedule(this::registerOrRetry, heartbeatIntervalMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                // closed meanwhile
            }
        }
    }

    private void registerAndHeartbeat(long timeoutMs) throws Exception {
        BrokerRegistrationReply reply = controller.registerBroker(registration).get(timeoutMs, TimeUnit.MILLISECONDS);
        if (reply.error() != Errors.NONE) {
            throw new IllegalStateException("The controller refused the registration of broker "
                    + registration.brokerId() + ": " + reply.error() + " (" + reply.message() + ")");
        }
        brokerEpoch = reply.brokerEpoch();
        heartbeat().get(timeoutMs, TimeUnit.MILLISECONDS);
    }

    public long brokerEpoch() {
        return brokerEpoch;
    }

    private java.util.concurrent.CompletableFuture<BrokerHeartbeatReply> heartbeat() {
        return controller
                .brokerHeartbeat(BrokerHeartbeatRequest.of(
                        registration.brokerId(), brokerEpoch, loader.image().offset()))
                .whenComplete((reply, error) -> {
                    if (reply == null) {
                        return;
                    }
                    if (reply.error() != Errors.NONE) {
                        LOG.warn(
                                "Heartbeat of broker {} refused: {} ({})",
                                registration.brokerId(),
                                reply.error(),
                                reply.message());
                    } else if (reply.isFenced() != fenced) {
                        fenced = reply.isFenced();
                        LOG.info("Broker {} is {}", registration.brokerId(), fenced ? "fenced" : "unfenced");
                    }
                });
    }

    private void heartbeatQuietly() {
        try {
            heartbeat().get(heartbeatIntervalMs * 5, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("Heartbeat of broker {} failed: {}", registration.brokerId(), e.toString());
        }
    }

    @Override
    public void close() {
        heartbeats.shutdownNow();
    }
}
