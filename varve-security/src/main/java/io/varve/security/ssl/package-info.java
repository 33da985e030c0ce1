/** The principal of a TLS client: its certificate's subject turned into a name by Kafka's mapping rules. */
package io.varve.security.ssl;
