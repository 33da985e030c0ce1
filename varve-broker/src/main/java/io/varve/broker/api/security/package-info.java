/**
 * The security admin APIs: AlterUserScramCredentials (the controller's: the broker forwards it) and
 * DescribeUserScramCredentials (answered by a broker from its metadata image). Credentials are shown only as
 * mechanism and iteration count, never salt or keys.
 */
package io.varve.broker.api.security;
