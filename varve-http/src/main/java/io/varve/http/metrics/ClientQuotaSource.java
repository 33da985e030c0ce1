package io.varve.http.metrics;

/**
 * The client quotas' measured rates and throttles, read at each scrape (the broker's {@code RequestQuotas} is one).
 * Reporting must not block the request paths for long: a scrape walks the tracked clients once.
 */
@FunctionalInterface
public interface ClientQuotaSource {
    /** Kafka's quota types, as its {@code ClientQuotaManager} sensors name their metric groups. */
    enum QuotaType {
        PRODUCE("produce", "byte_rate", "Bytes per second produced"),
        FETCH("fetch", "byte_rate", "Bytes per second fetched"),
        REQUEST("request", "request_time", "Request handler time, in percent of one thread"),
        CONTROLLER_MUTATION("controllermutation", "mutation_rate", "Partitions created or deleted per second");

        final String group;
        final String rateName;
        final String rateHelp;

        QuotaType(String group, String rateName, String rateHelp) {
            this.group = group;
            this.rateName = rateName;
            this.rateHelp = rateHelp;
        }
    }

    /** Calls {@code sink} once for every client (quota entity) a quota tracks now. */
    void report(Sink sink);

    @FunctionalInterface
    interface Sink {
        /**
         * @param user           the quota entity's user tag ("" when the quota is not by user)
         * @param clientId       its client-id tag ("" when not by client id)
         * @param rate           the rate the quota limits, per second, over the quota's windows
         * @param throttleTimeMs the mean throttle time earned within the windows (0 when none)
         */
        void client(QuotaType type, String user, String clientId, double rate, double throttleTimeMs);
    }
}
