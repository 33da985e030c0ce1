/**
 * Security metadata the controller decides on: users' SCRAM credentials, ACLs and delegation tokens. Pure: an image in,
 * records and replies out.
 */
package io.varve.metadata.controller.security;
