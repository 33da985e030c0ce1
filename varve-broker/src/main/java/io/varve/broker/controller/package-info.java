/**
 * The way between brokers and the active controller. The broker side: {@link
 * io.varve.broker.controller.ControllerChannel} (implemented by {@link io.varve.broker.controller.ControllerRouter}),
 * through which every request to the controller goes, in process when this node's controller leads and over the
 * controller listener otherwise (client admin requests in an Envelope, the broker's own directly, retried on
 * NOT_CONTROLLER and lost connections within a deadline); {@link io.varve.broker.controller.ControllerCalls} for the
 * broker's own calls. The controller side: {@link io.varve.broker.controller.ControllerApis}, the API set of the
 * controller listener, and {@link io.varve.broker.controller.ControllerListenerDispatcher}, which shares the listener
 * with the Raft transport. Owns no controller logic (that is {@code io.varve.metadata.controller}'s) and no
 * request-to-controller mapping (that is the handlers' in {@code io.varve.broker.api}).
 */
package io.varve.broker.controller;
