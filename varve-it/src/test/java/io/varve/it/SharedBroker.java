package io.varve.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One broker (and one Admin client) for all tests of a class: {@code @RegisterExtension static final SharedBroker shared}.
 * Tests of such a class use unique topic names so they do not interfere.
 */
public final class SharedBroker implements BeforeAllCallback, AfterAllCallback {
    private final Map<String, String> overrides;
    private Path dataDir;
    private TestBroker broker;
    private Admin admin;

    public SharedBroker(Map<String, String> overrides) {
        this.overrides = overrides;
    }

    public SharedBroker() {
        this(Map.of());
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dataDir = Files.createTempDirectory("varve-it-");
        broker = TestBroker.start(dataDir, overrides);
        admin = broker.admin();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
        if (dataDir != null) {
            TestFiles.deleteRecursively(dataDir);
        }
    }

    public TestBroker broker() {
        return broker;
    }

    public Admin admin() {
        return admin;
    }
}
