package io.varve.security.sasl;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The client exchanges against Varve's server exchanges, and against servers that answer wrongly. */
class SaslClientExchangeTest {
    private static final byte[] RFC_SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
    private static final String RFC_CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
    private static final String RFC_SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";

    private static ScramExchange server(ScramMechanism mechanism, String password) {
        ScramCredential credential = mechanism.credential(password, RFC_SALT, 4096);
        return new ScramExchange(
                mechanism,
                (user, m) -> user.equals("user") ? Optional.of(credential) : Optional.empty(),
                () -> RFC_SERVER_NONCE);
    }

    /** Runs the client against the server until the client has nothing more to send. */
    private static void run(SaslClientExchange client, SaslServerExchange server) throws SaslAuthenticationFailure {
        byte[] token = client.initialResponse();
        while (token != null) {
            token = client.evaluate(server.evaluate(token));
        }
    }

    @Test
    void scramSendsTheRfc7677ExampleMessagesAndChecksTheServerSignature() throws Exception {
        ScramClientExchange client =
                new ScramClientExchange(ScramMechanism.SCRAM_SHA_256, "user", "pencil", RFC_CLIENT_NONCE);
        assertThat(new String(client.initialResponse(), UTF_8)).isEqualTo("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        byte[] serverFirst =
                ("r=" + RFC_CLIENT_NONCE + RFC_SERVER_NONCE + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096").getBytes(UTF_8);
        assertThat(new String(client.evaluate(serverFirst), UTF_8))
                .isEqualTo("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                        + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
        assertThat(client.complete()).isFalse();
        assertThat(client.evaluate("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".getBytes(UTF_8)))
                .isNull();
        assertThat(client.complete()).isTrue();
    }

    @Test
    void scramSha512AuthenticatesAgainstVarvesServer() throws Exception {
        ScramExchange server = server(ScramMechanism.SCRAM_SHA_512, "pencil");
        run(new ScramClientExchange(ScramMechanism.SCRAM_SHA_512, "user", "pencil", RFC_CLIENT_NONCE), server);
        assertThat(server.complete()).isTrue();
        assertThat(server.authorizationId()).isEqualTo("user");
    }

    @Test
    void aWrongScramPasswordIsRefusedByTheServer() {
        ScramExchange server = server(ScramMechanism.SCRAM_SHA_256, "pencil");
        assertThatThrownBy(() -> run(
                        new ScramClientExchange(ScramMechanism.SCRAM_SHA_256, "user", "guess", RFC_CLIENT_NONCE),
                        server))
                .isInstanceOf(SaslAuthenticationFailure.class)
                .hasMessageContaining("invalid credentials");
    }

    @Test
    void aServerThatDoesNotHoldTheCredentialCannotForgeTheFinalSignature() throws Exception {
        // the server signs with another password's keys: the client must not take the connection as authenticated
        ScramExchange impostor = server(ScramMechanism.SCRAM_SHA_256, "pencil");
        ScramClientExchange client =
                new ScramClientExchange(ScramMechanism.SCRAM_SHA_256, "user", "pencil", RFC_CLIENT_NONCE);
        byte[] clientFinal = client.evaluate(impostor.evaluate(client.initialResponse()));
        impostor.evaluate(clientFinal);
        assertThatThrownBy(() ->
                        client.evaluate(("v=" + Base64.getEncoder().encodeToString(new byte[32])).getBytes(UTF_8)))
                .hasMessageContaining("signature is wrong");
        assertThat(client.complete()).isFalse();
    }

    @Test
    void aServerNonceThatDoesNotExtendTheClientsIsRefused() {
        ScramClientExchange client =
                new ScramClientExchange(ScramMechanism.SCRAM_SHA_256, "user", "pencil", RFC_CLIENT_NONCE);
        assertThatThrownBy(() -> client.evaluate("r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".getBytes(UTF_8)))
                .hasMessageContaining("does not extend");
    }

    @Test
    void tooFewIterationsAreRefusedAsKafkasClientRefusesThem() {
        ScramClientExchange client =
                new ScramClientExchange(ScramMechanism.SCRAM_SHA_256, "user", "pencil", RFC_CLIENT_NONCE);
        assertThatThrownBy(() ->
                        client.evaluate(("r=" + RFC_CLIENT_NONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1").getBytes(UTF_8)))
                .hasMessageContaining("1 SCRAM-SHA-256 iterations");
    }

    @Test
    void aServerErrorAttributeEndsTheExchangeWithItsText() {
        ScramClientExchange client =
                new ScramClientExchange(ScramMechanism.SCRAM_SHA_256, "user", "pencil", RFC_CLIENT_NONCE);
        assertThatThrownBy(() -> client.evaluate("e=unknown-user".getBytes(UTF_8)))
                .hasMessageContaining("unknown-user");
    }

    @Test
    void aUserNameWithCommaAndEqualsTravelsEscaped() {
        ScramClientExchange client =
                new ScramClientExchange(ScramMechanism.SCRAM_SHA_256, "a,b=c", "pencil", RFC_CLIENT_NONCE);
        assertThat(new String(client.initialResponse(), UTF_8)).isEqualTo("n,,n=a=2Cb=3Dc,r=rOprNGfwEbeRWgbNEkqO");
    }

    @Test
    void plainAuthenticatesAgainstVarvesServerAndAWrongPasswordDoesNot() throws Exception {
        PlainExchange server = new PlainExchange(Map.of("admin", "admin-secret"));
        SaslClientExchange client = SaslClientExchange.of("PLAIN", "admin", "admin-secret", () -> "unused")
                .orElseThrow();
        run(client, server);
        assertThat(client.complete()).isTrue();
        assertThat(server.authorizationId()).isEqualTo("admin");
        assertThatThrownBy(() -> run(
                        new PlainClientExchange("admin", "guess"), new PlainExchange(Map.of("admin", "admin-secret"))))
                .isInstanceOf(SaslAuthenticationFailure.class);
    }

    @Test
    void mechanismsVarveCannotSpeakAsAClientAreEmpty() {
        assertThat(SaslClientExchange.of("OAUTHBEARER", "u", "p", () -> "n")).isEmpty();
        assertThat(SaslClientExchange.of("GSSAPI", "u", "p", () -> "n")).isEmpty();
    }
}
