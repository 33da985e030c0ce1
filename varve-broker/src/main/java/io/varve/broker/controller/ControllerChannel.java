package io.varve.broker.controller;

import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The broker's one way to the active controller. Whatever this node asks of the controller goes through here: the
 * admin requests clients send it ({@link #forward}), and its own requests ({@link #send}: registration, heartbeats,
 * producer-id blocks, the topics Metadata and the coordinators create). Answers are the active controller's, wherever
 * it runs: in this process when this node's controller leads, otherwise over the controller listener.
 */
public interface ControllerChannel {

    /**
     * A client's admin request, answered by the active controller as if the client had sent it there (the answer is
     * the one for the client's version). When no controller answers in time, the answer is the request's own error
     * response with REQUEST_TIMED_OUT, which clients retry.
     */
    CompletableFuture<ApiMessage> forward(RequestContext request);

    /**
     * This broker's own request at the newest version both sides know; the future completes with the active
     * controller's answer (never one saying NOT_CONTROLLER: those are retried), or fails once no controller answered
     * within the deadline.
     */
    CompletableFuture<ApiMessage> send(ApiKeys api, ApiMessage request);
}
