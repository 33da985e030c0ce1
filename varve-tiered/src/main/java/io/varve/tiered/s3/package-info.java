/**
 * The S3 backend on the AWS SDK for Java v2 (synchronous client, Apache 5 HTTP client): any S3-compatible store,
 * with endpoint override and path-style access for MinIO, s3proxy and friends, multipart upload for large segments
 * and ranged GETs for reads.
 */
package io.varve.tiered.s3;
