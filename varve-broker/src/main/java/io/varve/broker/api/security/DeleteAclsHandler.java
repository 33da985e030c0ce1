package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.security.authorizer.AclFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsMatchingAcl;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteAcls on the active controller: every ACL a filter matches is removed (decided against the controller's image)
 * and listed in that filter's result; a filter with an unknown code gets INVALID_REQUEST.
 */
public final class DeleteAclsHandler implements ApiHandler {
    private final QuorumController controller;

    public DeleteAclsHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DeleteAclsRequestData data = request.body();
        List<Optional<AclFilter>> filters = new ArrayList<>();
        List<Predicate<AccessControlEntryRecord>> valid = new ArrayList<>();
        for (DeleteAclsRequestData.DeleteAclsFilter f : data.filters()) {
            Optional<AclFilter> filter = AclFields.filter(
                    f.resourceTypeFilter(),
                    f.resourceNameFilter(),
                    f.patternTypeFilter(),
                    f.principalFilter(),
                    f.hostFilter(),
                    f.operation(),
                    f.permissionType());
            filters.add(filter);
            filter.ifPresent(af -> valid.add(r -> af.matches(AclFields.binding(r))));
        }
        return controller.deleteAcls(valid).thenApply(matched -> {
            DeleteAclsResponseData response = new DeleteAclsResponseData();
            int next = 0;
            for (Optional<AclFilter> filter : filters) {
                DeleteAclsFilterResult result = new DeleteAclsFilterResult();
                if (filter.isEmpty()) {
                    result.setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage("The filter names a resource type, pattern type, operation or"
                                    + " permission the protocol does not define");
                } else {
                    for (AccessControlEntryRecord acl : matched.get(next++)) {
                        result.matchingAcls()
                                .add(new DeleteAclsMatchingAcl()
                                        .setResourceType(acl.resourceType())
                                        .setResourceName(acl.resourceName())
                                        .setPatternType(acl.patternType())
                                        .setPrincipal(acl.principal())
                                        .setHost(acl.host())
                                        .setOperation(acl.operation())
                                        .setPermissionType(acl.permission()));
                    }
                }
                response.filterResults().add(result);
            }
            return response;
        });
    }
}
