package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.record.AccessControlEntryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData.AclCreationResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateAcls on the active controller: each creation is checked (INVALID_REQUEST with a message), the valid ones are
 * written together; one result per creation, in order. An ACL that exists already is a success.
 */
public final class CreateAclsHandler implements ApiHandler {
    private final QuorumController controller;

    public CreateAclsHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        CreateAclsRequestData data = request.body();
        List<AclCreationResult> results = new ArrayList<>();
        List<AccessControlEntryRecord> valid = new ArrayList<>();
        for (CreateAclsRequestData.AclCreation c : data.creations()) {
            Optional<String> invalid = AclFields.invalidAcl(
                    c.resourceType(),
                    c.resourceName(),
                    c.resourcePatternType(),
                    c.principal(),
                    c.host(),
                    c.operation(),
                    c.permissionType());
            if (invalid.isPresent()) {
                results.add(new AclCreationResult()
                        .setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage(invalid.get()));
            } else {
                valid.add(AclFields.record(
                        c.resourceType(),
                        c.resourceName(),
                        c.resourcePatternType(),
                        c.principal(),
                        c.host(),
                        c.operation(),
                        c.permissionType()));
                results.add(new AclCreationResult().setErrorCode(Errors.NONE.code()));
            }
        }
        return controller.createAcls(valid).thenApply(done -> new CreateAclsResponseData().setResults(results));
    }
}
