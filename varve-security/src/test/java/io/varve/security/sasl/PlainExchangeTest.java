package io.varve.security.sasl;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PlainExchangeTest {
    private final Map<String, String> users = Map.of("alice", "alice-secret", "admin", "admin-secret");

    private static byte[] token(String authzid, String user, String password) {
        return (authzid + "\0" + user + "\0" + password).getBytes(UTF_8);
    }

    @Test
    void theRightPasswordAuthenticatesTheUser() throws Exception {
        PlainExchange exchange = new PlainExchange(users);
        assertThat(exchange.evaluate(token("", "alice", "alice-secret"))).isEmpty();
        assertThat(exchange.complete()).isTrue();
        assertThat(exchange.authorizationId()).isEqualTo("alice");
    }

    @Test
    void anAuthorizationIdEqualToTheUserIsAccepted() throws Exception {
        PlainExchange exchange = new PlainExchange(users);
        exchange.evaluate(token("alice", "alice", "alice-secret"));
        assertThat(exchange.authorizationId()).isEqualTo("alice");
    }

    @Test
    void aWrongPasswordAndAnUnknownUserGetTheSameMessageWithoutTheSecret() {
        assertThatThrownBy(() -> new PlainExchange(users).evaluate(token("", "alice", "guess")))
                .isInstanceOf(SaslAuthenticationFailure.class)
                .hasMessage("Authentication failed: Invalid username or password");
        assertThatThrownBy(() -> new PlainExchange(users).evaluate(token("", "mallory", "alice-secret")))
                .hasMessage("Authentication failed: Invalid username or password");
    }

    @Test
    void malformedTokensAndImpersonationAreRefused() {
        assertThatThrownBy(() -> new PlainExchange(users).evaluate("alice".getBytes(UTF_8)))
                .hasMessageContaining("expected 3 tokens");
        assertThatThrownBy(() -> new PlainExchange(users).evaluate(token("admin", "alice", "alice-secret")))
                .hasMessageContaining("authorization id that is different");
        assertThatThrownBy(() -> new PlainExchange(users).evaluate(token("", "", "x")))
                .hasMessageContaining("username not specified");
        assertThatThrownBy(() -> new PlainExchange(users).evaluate(token("", "alice", "")))
                .hasMessageContaining("password not specified");
    }

    @Test
    void aFailedExchangeRefusesASecondTokenEvenWithTheRightPassword() {
        // found by SaslExchangeFuzzTest: a wrong password, then the right one, authenticated on the same exchange
        PlainExchange exchange = new PlainExchange(users);
        assertThatThrownBy(() -> exchange.evaluate(token("", "alice", "guess")))
                .isInstanceOf(SaslAuthenticationFailure.class);
        assertThatThrownBy(() -> exchange.evaluate(token("", "alice", "alice-secret")))
                .isInstanceOf(SaslAuthenticationFailure.class)
                .hasMessageContaining("already sent");
        assertThat(exchange.complete()).isFalse();
    }
}
