/**
 * Finalized feature levels: which levels this build supports
 * ({@link io.varve.metadata.controller.feature.SupportedFeatures}) and the UpdateFeatures decision
 * ({@link io.varve.metadata.controller.feature.FeatureControl}), validated against what every
 * registered broker supports. Pure: images in, {@link io.varve.metadata.record.FeatureLevelRecord}s
 * and a reply out. What a level enables is for the code that reads it, not for this package.
 */
package io.varve.metadata.controller.feature;
