package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.ScramImage;
import io.varve.metadata.record.UserScramCredentialRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeUserScramCredentials from the broker's metadata image: every user with a credential when no user is named,
 * else each named user (RESOURCE_NOT_FOUND for one without, DUPLICATE_RESOURCE for one named twice). Mechanisms and
 * iteration counts only.
 */
public final class DescribeUserScramCredentialsHandler implements ApiHandler {
    private final Supplier<MetadataImage> image;

    public DescribeUserScramCredentialsHandler(Supplier<MetadataImage> image) {
        this.image = image;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeUserScramCredentialsRequestData data = request.body();
        ScramImage scram = image.get().scram();
        DescribeUserScramCredentialsResponseData response = new DescribeUserScramCredentialsResponseData();
        List<String> names = new ArrayList<>();
        if (data.users() == null || data.users().isEmpty()) {
            names.addAll(scram.users().keySet());
        } else {
            data.users().stream().map(UserName::name).forEach(names::add);
        }
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        names.forEach(n -> {
            if (!seen.add(n)) {
                duplicates.add(n);
            }
        });
        Set<String> answered = new HashSet<>();
        for (String name : names) {
            if (!answered.add(name)) {
                continue;
            }
            DescribeUserScramCredentialsResult result = new DescribeUserScramCredentialsResult().setUser(name);
            Map<Byte, UserScramCredentialRecord> credentials = scram.users().get(name);
            if (duplicates.contains(name)) {
                result.setErrorCode(Errors.DUPLICATE_RESOURCE.code())
                        .setErrorMessage(
                                "Cannot describe SCRAM credentials for the same user twice in a single" + " request");
            } else if (credentials == null) {
                result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("Attempt to describe a user credential that does not exist");
            } else {
                credentials.forEach((mechanism, c) -> result.credentialInfos()
                        .add(new CredentialInfo().setMechanism(mechanism).setIterations(c.iterations())));
            }
            response.results().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }
}
