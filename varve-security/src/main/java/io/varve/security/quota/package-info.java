/**
 * Client quotas as pure logic: which quota applies to a (user, client-id) pair ({@link QuotaResolver}), rates over
 * sampled windows ({@link SampledRate}) and the throttle time a request earns ({@link QuotaManager}). Times are passed
 * in; no threads, no clock, no network. The broker ({@code io.varve.broker.quota}) records and mutes.
 */
package io.varve.security.quota;
