package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.security.authorizer.AclFilter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsResponseData.AclDescription;
import org.apache.kafka.common.message.DescribeAclsResponseData.DescribeAclsResource;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeAcls from the broker's metadata image: the ACLs the filter matches, grouped by resource pattern. */
public final class DescribeAclsHandler implements ApiHandler {
    private final Supplier<MetadataImage> image;

    public DescribeAclsHandler(Supplier<MetadataImage> image) {
        this.image = image;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeAclsRequestData f = request.body();
        Optional<AclFilter> filter = AclFields.filter(
                f.resourceTypeFilter(),
                f.resourceNameFilter(),
                f.patternTypeFilter(),
                f.principalFilter(),
                f.hostFilter(),
                f.operation(),
                f.permissionType());
        DescribeAclsResponseData response = new DescribeAclsResponseData();
        if (filter.isEmpty()) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("The filter names a resource type, pattern type, operation or permission the"
                            + " protocol does not define"));
        }
        Map<List<Object>, DescribeAclsResource> byResource = new LinkedHashMap<>();
        for (AccessControlEntryRecord acl : image.get().acls().acls().values()) {
            if (!filter.get().matches(AclFields.binding(acl))) {
                continue;
            }
            byResource
                    .computeIfAbsent(
                            List.of(acl.resourceType(), acl.resourceName(), acl.patternType()),
                            k -> new DescribeAclsResource()
                                    .setResourceType(acl.resourceType())
                                    .setResourceName(acl.resourceName())
                                    .setPatternType(acl.patternType()))
                    .acls()
                    .add(new AclDescription()
                            .setPrincipal(acl.principal())
                            .setHost(acl.host())
                            .setOperation(acl.operation())
                            .setPermissionType(acl.permission()));
        }
        response.resources().addAll(byResource.values());
        return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code()));
    }
}
