package io.varve.broker.metadata;

import io.varve.broker.controller.ControllerCalls;
import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.cluster.BrokerHeartbeatReply;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import io.varve.metadata.controller.cluster.BrokerRegistrationReply;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's life as a broker of the cluster, as Kafka's broker lives it: registers with the active controller
 * (wherever it runs: the calls go through the {@link ControllerCalls}), then heartbeats every {@code
 * broker.heartbeat.interval.ms} with the offset of the metadata log it has applied, so the controller keeps its session
 * and unfences it once it has caught up. A registration the controller refuses (DUPLICATE_BROKER_REGISTRATION: another
 * live broker has this node.id) is fatal. A heartbeat answered STALE_BROKER_EPOCH (the controller lost the
 * registration, or another incarnation took it) registers again.
 *
 * <p>Controlled shutdown ({@link #close} when asked for it): heartbeats with {@code wantShutDown} until the controller
 * answers {@code shouldShutDown} (it has moved every leadership off this broker and fenced it), or the bound passes.
 */
public final class BrokerLifecycle implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerLifecycle.class);

    private final ControllerCalls controller;
    private final MetadataLoader loader;
    private final BrokerRegistrationRequest registration;
    private final long heartbeatIntervalMs;
    private final long controlledShutdownTimeoutMs;
    private final LongSupplier clockMs;
    private final ScheduledExecutorService heartbeats;
    private volatile long brokerEpoch = -1;
    private volatile boolean fenced = true;
    private boolean closed;
    /** Completes at the first registration, fails if the controller refuses it. */
    private final CompletableFuture<Void> registered = new CompletableFuture<>();

    /**
     * @param controlledShutdownTimeoutMs how long {@link #close} waits for the controller's leave to shut down; 0
     *                                    skips controlled shutdown (a lone node: its partitions have nowhere to go)
     */
    public BrokerLifecycle(
            ControllerCalls controller,
            MetadataLoader loader,
            BrokerRegistrationRequest registration,
            long heartbeatIntervalMs,
            long controlledShutdownTimeoutMs,
            LongSupplier clockMs) {
        this.controller = Objects.requireNonNull(controller, "controller");
        this.loader = Objects.requireNonNull(loader, "loader");
        this.registration = Objects.requireNonNull(registration, "registration");
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.controlledShutdownTimeoutMs = controlledShutdownTimeoutMs;
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
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
        scheduleHeartbeats();
    }

    /**
     * Registers from the background (the active controller may not be elected yet, or be another node), trying every
     * heartbeat interval until it succeeds, then heartbeats. Waits up to {@code refusalWaitMs} for a first answer, so
     * that a refused registration (a duplicate node id) stops the start with the controller's reason.
     *
     * @throws IllegalStateException if the controller refuses the registration within the wait
     */
    public void startInBackground(long refusalWaitMs) throws InterruptedException {
        heartbeats.execute(this::registerOrRetry);
        try {
            registered.get(refusalWaitMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException stillTrying) {
            LOG.info("Broker {} not registered yet; registering in the background", registration.brokerId());
        } catch (java.util.concurrent.ExecutionException refused) {
            throw new IllegalStateException(refused.getCause().getMessage(), refused.getCause());
        }
    }

    private void registerOrRetry() {
        try {
            registerAndHeartbeat(heartbeatIntervalMs * 5);
            LOG.info("Broker {} registered with epoch {}", registration.brokerId(), brokerEpoch);
            scheduleHeartbeats();
            registered.complete(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalStateException refused) {
            LOG.error("{}", refused.getMessage());
            registered.completeExceptionally(refused);
        } catch (Exception e) {
            LOG.debug("Broker {} not registered yet: {}", registration.brokerId(), e.toString());
            try {
                heartbeats.schedule(this::registerOrRetry, heartbeatIntervalMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // closed meanwhile
            }
        }
    }

    private void scheduleHeartbeats() {
        heartbeats.scheduleWithFixedDelay(
                this::heartbeatQuietly, heartbeatIntervalMs, heartbeatIntervalMs, TimeUnit.MILLISECONDS);
    }

    private void registerAndHeartbeat(long timeoutMs) throws Exception {
        BrokerRegistrationReply reply = controller.registerBroker(registration).get(timeoutMs, TimeUnit.MILLISECONDS);
        if (reply.error() != Errors.NONE) {
            throw new IllegalStateException("The controller refused the registration of broker "
                    + registration.brokerId() + ": " + reply.error() + " (" + reply.message() + ")");
        }
        brokerEpoch = reply.brokerEpoch();
        heartbeat(false).get(timeoutMs, TimeUnit.MILLISECONDS);
    }

    public long brokerEpoch() {
        return brokerEpoch;
    }

    /** Whether the controller's last answer said this broker is fenced. */
    public boolean fenced() {
        return fenced;
    }

    private CompletableFuture<BrokerHeartbeatReply> heartbeat(boolean wantShutDown) {
        return controller
                .brokerHeartbeat(new BrokerHeartbeatRequest(
                        registration.brokerId(), brokerEpoch, loader.image().offset(), false, wantShutDown))
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
            BrokerHeartbeatReply reply = heartbeat(false).get(heartbeatIntervalMs * 5, TimeUnit.MILLISECONDS);
            if (reply.error() == Errors.STALE_BROKER_EPOCH) {
                // The controller no longer knows this incarnation's epoch (a failover lost nothing, so another
                // registration replaced it, or it was unregistered): register again.
                BrokerRegistrationReply again =
                        controller.registerBroker(registration).get(heartbeatIntervalMs * 5, TimeUnit.MILLISECONDS);
                if (again.error() == Errors.NONE) {
                    brokerEpoch = again.brokerEpoch();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("Heartbeat of broker {} failed: {}", registration.brokerId(), e.toString());
        }
    }

    /** Controlled shutdown, when asked for and registered; then stops heartbeating. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        heartbeats.shutdownNow();
        if (controlledShutdownTimeoutMs <= 0 || brokerEpoch < 0) {
            return;
        }
        long deadlineMs = clockMs.getAsLong() + controlledShutdownTimeoutMs;
        while (clockMs.getAsLong() < deadlineMs) {
            try {
                BrokerHeartbeatReply reply =
                        heartbeat(true).get(Math.max(1, deadlineMs - clockMs.getAsLong()), TimeUnit.MILLISECONDS);
                if (reply.error() == Errors.NONE && reply.shouldShutDown()) {
                    LOG.info("Broker {}: controlled shutdown complete", registration.brokerId());
                    return;
                }
                if (reply.error() != Errors.NONE) {
                    break;
                }
                Thread.sleep(Math.min(heartbeatIntervalMs, Math.max(1, deadlineMs - clockMs.getAsLong())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                break;
            }
        }
        LOG.warn(
                "Broker {}: the controller did not complete controlled shutdown within {} ms; shutting down anyway",
                registration.brokerId(),
                controlledShutdownTimeoutMs);
    }
}
