/**
 * Client quotas on the controller: which entities and keys AlterClientQuotas may set, and the records it writes. Pure;
 * the broker throttles by the image these records build ({@code io.varve.broker.quota}).
 */
package io.varve.metadata.controller.quota;
