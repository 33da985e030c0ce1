package io.varve.security.sasl;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ScramExchangeTest {
    /** RFC 7677 section 3's example exchange: user "user", password "pencil". */
    private static final byte[] RFC_SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");

    private static final String RFC_SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";

    private final ScramCredential pencil = ScramMechanism.SCRAM_SHA_256.credential("pencil", RFC_SALT, 4096);

    private ScramExchange exchange() {
        return new ScramExchange(
                ScramMechanism.SCRAM_SHA_256,
                (user, mechanism) -> user.equals("user") ? Optional.of(pencil) : Optional.empty(),
                () -> RFC_SERVER_NONCE);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, UTF_8);
    }

    @Test
    void theRfc7677ExampleAuthenticatesAndTheServerProvesItKnowsTheCredential() throws Exception {
        ScramExchange exchange = exchange();
        assertThat(text(exchange.evaluate("n,,n=user,r=rOprNGfwEbeRWgbNEkqO".getBytes(UTF_8))))
                .isEqualTo("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
        assertThat(exchange.complete()).isFalse();
        assertThat(text(exchange.evaluate(("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                                + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
                        .getBytes(UTF_8))))
                .isEqualTo("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
        assertThat(exchange.complete()).isTrue();
        assertThat(exchange.authorizationId()).isEqualTo("user");
    }

    @Test
    void aFinalNonceThatEndsWithTheCombinedNonceIsAcceptedAsKafkaDoesForLibrdkafka() throws Exception {
        // librdkafka 2.0 repeats its own nonce in front of the combined one; the proof is over what it sent
        ScramExchange exchange = exchange();
        exchange.evaluate("n,,n=user,r=rOprNGfwEbeRWgbNEkqO".getBytes(UTF_8));
        String withoutProof = "c=biws,r=rOprNGfwEbeRWgbNEkqOrOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        byte[] salted = ScramMechanism.SCRAM_SHA_256.saltedPassword("pencil", RFC_SALT, 4096);
        byte[] clientKey = ScramMechanism.SCRAM_SHA_256.hmac(salted, "Client Key".getBytes(UTF_8));
        String authMessage = "n=user,r=rOprNGfwEbeRWgbNEkqO,"
                + "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,"
                + withoutProof;
        byte[] signature = ScramMechanism.SCRAM_SHA_256.hmac(
                ScramMechanism.SCRAM_SHA_256.hash(clientKey), authMessage.getBytes(UTF_8));
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        exchange.evaluate((withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(UTF_8));
        assertThat(exchange.complete()).isTrue();
    }

    @Test
    void aWrongProofFailsWithTheMechanismNamed() throws Exception {
        ScramExchange exchange = exchange();
        exchange.evaluate("n,,n=user,r=rOprNGfwEbeRWgbNEkqO".getBytes(UTF_8));
        assertThatThrownBy(() -> exchange.evaluate(("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                                + "p=AAAAAapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
                        .getBytes(UTF_8)))
                .isInstanceOf(SaslAuthenticationFailure.class)
                .hasMessageContaining("invalid credentials with SASL mechanism SCRAM-SHA-256");
        assertThat(exchange.complete()).isFalse();
        assertThatThrownBy(() -> exchange.evaluate(new byte[0])).hasMessageContaining("already over");
    }

    @Test
    void anUnknownUserIsRefusedAtTheFirstMessage() {
        assertThatThrownBy(() -> exchange().evaluate("n,,n=nobody,r=abc".getBytes(UTF_8)))
                .hasMessage("Authentication failed: Invalid user credentials");
    }

    @Test
    void theExchangeIsCheckedAsStrictlyAsTheRfc() throws Exception {
        assertThatThrownBy(() -> exchange().evaluate("p=tls-unique,,n=user,r=abc".getBytes(UTF_8)))
                .hasMessageContaining("channel binding");
        assertThatThrownBy(() -> exchange().evaluate("n,a=admin,n=user,r=abc".getBytes(UTF_8)))
                .hasMessageContaining("authorization id");
        assertThatThrownBy(() -> exchange().evaluate("n,,n=user,r=a b".getBytes(UTF_8)))
                .hasMessageContaining("nonce");
        assertThatThrownBy(() -> exchange().evaluate("n,,n=us=er,r=abc".getBytes(UTF_8)))
                .hasMessageContaining("username encoding");
        assertThatThrownBy(() -> exchange().evaluate("n,,n=user,r=abc,tokenauth=true".getBytes(UTF_8)))
                .hasMessageContaining("delegation tokens are not enabled");

        ScramExchange replayedNonce = exchange();
        replayedNonce.evaluate("n,,n=user,r=rOprNGfwEbeRWgbNEkqO".getBytes(UTF_8));
        assertThatThrownBy(() -> replayedNonce.evaluate(
                        "c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=".getBytes(UTF_8)))
                .hasMessageContaining("nonce");

        ScramExchange otherHeader = exchange();
        otherHeader.evaluate("n,,n=user,r=rOprNGfwEbeRWgbNEkqO".getBytes(UTF_8));
        String header = Base64.getEncoder().encodeToString("n,a=user,".getBytes(UTF_8));
        assertThatThrownBy(() -> otherHeader.evaluate(("c=" + header
                                + ",r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
                        .getBytes(UTF_8)))
                .hasMessageContaining("channel binding");
    }

    @Test
    void sha512CredentialsAreDerivedWithTheLongerHash() {
        ScramCredential c = ScramMechanism.SCRAM_SHA_512.credential("pencil", RFC_SALT, 4096);
        assertThat(c.storedKey()).hasSize(64);
        assertThat(c.serverKey()).hasSize(64);
        assertThat(ScramMechanism.forName("SCRAM-SHA-512")).contains(ScramMechanism.SCRAM_SHA_512);
        assertThat(ScramMechanism.forTypeId((byte) 1)).contains(ScramMechanism.SCRAM_SHA_256);
    }
}
