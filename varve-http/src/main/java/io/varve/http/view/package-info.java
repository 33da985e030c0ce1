/**
 * The narrow, read-only views of a node that the HTTP listener reads: records and one interface the broker
 * implements. Nothing here refers to broker, storage or coordinator classes.
 */
package io.varve.http.view;
