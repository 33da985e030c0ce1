/** Security metadata the controller decides on: users' SCRAM credentials. Pure: an image in, records and replies out. */
package io.varve.metadata.controller.security;
