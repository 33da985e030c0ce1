/** Integration tests of the transaction coordinator with real transactional KafkaProducers and Admin clients. */
package io.varve.it.txn;
