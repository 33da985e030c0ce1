/**
 * KIP-227 incremental fetch sessions on the broker: {@link io.varve.broker.fetchsession.FetchSessionCache} keeps, per
 * session, the partitions a client fetches and what it was last told about each, so an incremental request names
 * only what changed and its response carries only what changed. Pure: no I/O, no threads of its own, the clock
 * injected. Knows nothing of the wire format (the Fetch handler translates) nor of logs (the handler reads them).
 */
package io.varve.broker.fetchsession;
