/**
 * The HTTP listener of a node ({@code varve.http.listeners}): a small Netty HTTP/1.1 server ({@link
 * io.varve.http.HttpServer}), its endpoint syntax, and the routes {@code /metrics} and {@code /health/*} ({@link
 * io.varve.http.HttpListener}), with TLS and authentication as {@link io.varve.http.HttpSecurity} says (the broker
 * decides who is who). It reads the node only through {@code io.varve.http.view}; it must not reach into
 * storage, coordinator or broker classes.
 */
package io.varve.http;
