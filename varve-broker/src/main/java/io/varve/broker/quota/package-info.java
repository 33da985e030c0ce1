/**
 * Client quotas on a broker: the image's quotas resolved per request, Produce, Fetch and request-time rates recorded
 * ({@link RequestQuotas}), the throttle time put into the response; the network layer mutes the connection for that
 * long ({@code network.ConnectionHandler}). The pure rules live in varve-security's {@code quota} package.
 */
package io.varve.broker.quota;
