package io.varve.http.console;

import static io.varve.http.console.Html.esc;
import static io.varve.http.console.Layout.field;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.HttpServer;
import io.varve.http.view.AclEntry;
import io.varve.http.view.ClientQuota;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.ConsoleFailure;
import io.varve.http.view.ScramUser;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code /console/security}: the ACLs (with a form to create one and a button to delete each), the users with SCRAM
 * credentials (mechanisms and iterations: the API carries no secret), and the client quotas. Each section reads its
 * own Kafka API; one the node refuses (no authorizer: SECURITY_DISABLED; not authorized: 403) says why in place.
 */
final class SecurityPages {
    static final String PATH = "/console/security";

    private static final String[] RESOURCE_TYPES = {"TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "USER"};
    private static final String[] OPERATIONS = {
        "ALL",
        "READ",
        "WRITE",
        "CREATE",
        "DELETE",
        "ALTER",
        "DESCRIBE",
        "CLUSTER_ACTION",
        "DESCRIBE_CONFIGS",
        "ALTER_CONFIGS",
        "IDEMPOTENT_WRITE"
    };

    /** As the console's own principal: each handler acts as its request's ({@link ConsoleActions#actingAs}). */
    private final ConsoleActions consoleActions;

    SecurityPages(ConsoleActions actions) {
        this.consoleActions = actions;
    }

    void routes(HttpServer server) {
        server.route(PATH, this::show)
                .routePost(PATH + "/acls/create", r -> change(r, true))
                .routePost(PATH + "/acls/delete", r -> change(r, false));
    }

    private HttpResponse show(HttpRequest r) throws Exception {
        ConsoleActions actions = consoleActions.actingAs(r.principal(), r.remoteHost());
        CompletableFuture<List<AclEntry>> acls = actions.acls();
        CompletableFuture<List<ScramUser>> users = actions.scramUsers();
        CompletableFuture<List<ClientQuota>> quotas = actions.clientQuotas();
        StringBuilder b = new StringBuilder("<h1>Security</h1><h2>ACLs</h2>");
        try {
            List<AclEntry> list = Layout.await(acls);
            b.append("<table id=acls><thead><tr><th>Resource</th><th>Name</th><th>Pattern</th><th>Principal</th>"
                    + "<th>Host</th><th>Operation</th><th>Permission</th><th></th></tr></thead><tbody>");
            for (AclEntry a : list) {
                b.append("<tr>");
                for (String cell : new String[] {
                    a.resourceType(),
                    a.resourceName(),
                    a.patternType(),
                    a.principal(),
                    a.host(),
                    a.operation(),
                    a.permission()
                }) {
                    b.append("<td>").append(esc(cell)).append("</td>");
                }
                b.append("<td><form class=inline method=post action=\"")
                        .append(PATH)
                        .append("/acls/delete\"")
                        .append(" onsubmit=\"return confirm('Delete this ACL?')\">");
                hidden(b, a);
                b.append("<button type=submit class=delete>Delete</button></form></td></tr>");
            }
            b.append("</tbody></table>");
            createForm(b);
        } catch (ConsoleFailure f) {
            b.append("<p class=bad id=acls-error>").append(esc(f.getMessage())).append("</p>");
        }
        b.append("<h2>SCRAM users</h2>");
        try {
            List<ScramUser> list = Layout.await(users);
            b.append("<table id=scram><thead><tr><th>User</th><th>Mechanisms</th></tr></thead><tbody>");
            for (ScramUser u : list) {
                b.append("<tr><td>").append(esc(u.name())).append("</td><td>");
                for (ScramUser.Credential c : u.credentials()) {
                    b.append(esc(c.mechanism()))
                            .append(" <small>(")
                            .append(c.iterations())
                            .append(" iterations)</small> ");
                }
                b.append("</td></tr>");
            }
            b.append("</tbody></table>");
        } catch (ConsoleFailure f) {
            b.append("<p class=bad>").append(esc(f.getMessage())).append("</p>");
        }
        b.append("<h2>Client quotas</h2>");
        try {
            List<ClientQuota> list = Layout.await(quotas);
            if (list.isEmpty()) {
                b.append("<p id=quotas>No client quotas are set.</p>");
            } else {
                b.append("<table id=quotas><thead><tr><th>Entity</th><th>Quotas</th></tr></thead><tbody>");
                for (ClientQuota q : list) {
                    b.append("<tr><td>")
                            .append(esc(q.entity()))
                            .append("</td><td>")
                            .append(esc(q.values()))
                            .append("</td></tr>");
                }
                b.append("</tbody></table>");
            }
        } catch (ConsoleFailure f) {
            b.append("<p class=bad>").append(esc(f.getMessage())).append("</p>");
        }
        return Layout.page("Security", b.toString());
    }

    private HttpResponse change(HttpRequest r, boolean create) throws Exception {
        ConsoleActions actions = consoleActions.actingAs(r.principal(), r.remoteHost());
        AclEntry acl = new AclEntry(
                field(r, "resourceType"),
                field(r, "resourceName"),
                field(r, "patternType").isEmpty() ? "LITERAL" : field(r, "patternType"),
                field(r, "principal"),
                field(r, "host").isEmpty() ? "*" : field(r, "host"),
                field(r, "operation"),
                field(r, "permission").isEmpty() ? "ALLOW" : field(r, "permission"));
        if (acl.resourceType().isEmpty()
                || acl.principal().isEmpty()
                || acl.operation().isEmpty()) {
            return Layout.badRequest("Security", "An ACL needs a resource type, a principal and an operation.");
        }
        try {
            Layout.await(create ? actions.createAcl(acl) : actions.deleteAcl(acl));
        } catch (ConsoleFailure f) {
            return Layout.refused("Security", f);
        }
        return HttpResponse.seeOther(PATH);
    }

    private static void hidden(StringBuilder b, AclEntry a) {
        String[][] fields = {
            {"resourceType", a.resourceType()},
            {"resourceName", a.resourceName()},
            {"patternType", a.patternType()},
            {"principal", a.principal()},
            {"host", a.host()},
            {"operation", a.operation()},
            {"permission", a.permission()}
        };
        for (String[] f : fields) {
            b.append("<input type=hidden name=")
                    .append(f[0])
                    .append(" value=\"")
                    .append(esc(f[1]))
                    .append("\">");
        }
    }

    private static void createForm(StringBuilder b) {
        b.append("<form id=create-acl method=post action=\"")
                .append(PATH)
                .append("/acls/create\"><fieldset><legend>New ACL</legend>");
        select(b, "resourceType", RESOURCE_TYPES);
        b.append(" <input name=resourceName placeholder=\"name (kafka-cluster for CLUSTER)\" required> ");
        select(b, "patternType", new String[] {"LITERAL", "PREFIXED"});
        b.append(" <input name=principal placeholder=\"User:alice\" required>"
                + " <input name=host value=\"*\" size=8 aria-label=host> ");
        select(b, "operation", OPERATIONS);
        b.append(' ');
        select(b, "permission", new String[] {"ALLOW", "DENY"});
        b.append(" <button type=submit>Create ACL</button></fieldset></form>");
    }

    private static void select(StringBuilder b, String name, String[] options) {
        b.append("<select name=")
                .append(name)
                .append(" aria-label=")
                .append(name)
                .append('>');
        for (String o : options) {
            b.append("<option>").append(o).append("</option>");
        }
        b.append("</select>");
    }
}
