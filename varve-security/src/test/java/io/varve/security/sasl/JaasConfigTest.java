package io.varve.security.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JaasConfigTest {

    @Test
    void plainUsersAreTheUserOptions() {
        JaasConfig jaas = JaasConfig.parse(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
                        + "  username=\"admin\" password=\"admin-secret\"\n"
                        + "  user_admin=\"admin-secret\" user_alice=\"a \\\"quoted\\\" secret\";");
        assertThat(jaas.loginModule()).isEqualTo("org.apache.kafka.common.security.plain.PlainLoginModule");
        assertThat(jaas.controlFlag()).isEqualTo("required");
        assertThat(jaas.options()).containsEntry("username", "admin");
        assertThat(jaas.plainUsers()).containsOnlyKeys("admin", "alice").containsEntry("alice", "a \"quoted\" secret");
    }

    @Test
    void aModuleWithoutOptionsParses() {
        JaasConfig jaas = JaasConfig.parse("k", "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        assertThat(jaas.options()).isEmpty();
    }

    @Test
    void malformedTextIsRefusedNamingTheKeyButNeverItsValues() {
        assertThatThrownBy(() -> JaasConfig.parse("sasl.jaas.config", "Module required user_a=\"secret\""))
                .hasMessageContaining("sasl.jaas.config")
                .hasMessageContaining("end with ';'")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> JaasConfig.parse("k", "Module always;")).hasMessageContaining("control flag");
        assertThatThrownBy(() -> JaasConfig.parse("k", "Module required a=\"x;"))
                .hasMessageContaining("not closed");
        assertThatThrownBy(() -> JaasConfig.parse("k", "M required; N required;"))
                .hasMessageContaining("only one login module");
    }
}
