package io.varve.security.sasl;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * The server side of PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 fed whatever a client may send: each token either gets
 * an answer or the documented {@link SaslAuthenticationFailure}, never another exception; a failed exchange stays
 * failed; an exchange completes only for the one user with the one password; no failure message carries the stored
 * password. Half of the SCRAM runs send a client-final message with a proof computed from the real password over
 * the fuzzer's own first message, so the fuzzer reaches the proof check and past it instead of failing at the nonce.
 *
 * <p>Seeds: {@code src/test/resources/io/varve/security/sasl/SaslExchangeFuzzTestInputs/}. Regression runs replay them
 * in every build; {@code JAZZER_FUZZ=1} fuzzes (README: Fuzzing).
 */
class SaslExchangeFuzzTest {
    private static final String USER = "alice";
    private static final String PASSWORD = "alice-secret-pw";
    private static final byte[] SALT = "fuzz-fixed-salt".getBytes(UTF_8);
    private static final int ITERATIONS = ScramMechanism.MIN_ITERATIONS;
    private static final int MAX_TOKENS = 4;

    private static final Map<ScramMechanism, ScramCredential> CREDENTIALS = Map.of(
            ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_256.credential(PASSWORD, SALT, ITERATIONS),
            ScramMechanism.SCRAM_SHA_512, ScramMechanism.SCRAM_SHA_512.credential(PASSWORD, SALT, ITERATIONS));

    @DictionaryEntries({"n,,n=alice,r=", "n,a=alice,n=alice,r=", "c=biws,r=", ",p=", ",tokenauth=true", "=2C", "=3D"})
    @FuzzTest
    void anyClientTokensGetAnAnswerOrAnAuthenticationFailureAndOnlyTheRightPasswordAuthenticates(
            FuzzedDataProvider data) {
        int mechanism = data.consumeInt(0, 2);
        if (mechanism == 0) {
            plain(data);
        } else {
            scram(mechanism == 1 ? ScramMechanism.SCRAM_SHA_256 : ScramMechanism.SCRAM_SHA_512, data);
        }
    }

    private static void plain(FuzzedDataProvider data) {
        PlainExchange exchange = new PlainExchange(Map.of(USER, PASSWORD));
        boolean failed = false;
        for (int i = 0; i < MAX_TOKENS && data.remainingBytes() > 0; i++) {
            byte[] token = data.consumeBytes(data.consumeInt(0, 512));
            boolean rightCredentials = new String(token, UTF_8).endsWith("\0" + USER + "\0" + PASSWORD);
            boolean wasComplete = exchange.complete();
            try {
                exchange.evaluate(token);
                assertThat(failed)
                        .as("a failed PLAIN exchange accepted another token")
                        .isFalse();
                assertThat(wasComplete)
                        .as("a complete PLAIN exchange accepted another token")
                        .isFalse();
                assertThat(rightCredentials)
                        .as("PLAIN accepted a token without the password")
                        .isTrue();
            } catch (SaslAuthenticationFailure e) {
                failed = true;
                assertNoSecret(e);
            }
            assertCompleteOnlyAsTheUser(exchange);
        }
    }

    private static void scram(ScramMechanism mechanism, FuzzedDataProvider data) {
        String serverNonce = "server" + data.consumeInt(0, 1_000_000);
        ScramExchange exchange = new ScramExchange(
                mechanism,
                (user, m) -> user.equals(USER) ? Optional.ofNullable(CREDENTIALS.get(m)) : Optional.empty(),
                () -> serverNonce);
        boolean computeProof = data.consumeBoolean();
        boolean failed = false;
        String clientFirst = null;
        String serverFirst = null;
        for (int i = 0; i < MAX_TOKENS && data.remainingBytes() > 0; i++) {
            byte[] token;
            boolean honestFinal = false;
            if (i == 1 && computeProof && clientFirst != null && serverFirst != null) {
                String withoutProof = data.consumeString(256);
                token = finalMessage(mechanism, clientFirst, serverFirst, withoutProof);
                honestFinal = true;
            } else {
                token = data.consumeBytes(data.consumeInt(0, 512));
            }
            boolean wasComplete = exchange.complete();
            try {
                byte[] answer = exchange.evaluate(token);
                assertThat(failed)
                        .as("a failed SCRAM exchange accepted another token")
                        .isFalse();
                assertThat(wasComplete)
                        .as("a complete SCRAM exchange accepted another token")
                        .isFalse();
                if (i == 0) {
                    clientFirst = new String(token, UTF_8);
                    serverFirst = new String(answer, UTF_8);
                    assertThat(serverFirst).startsWith("r=").contains(serverNonce + ",s=");
                } else {
                    assertThat(honestFinal)
                            .as("SCRAM completed without a proof made from the password")
                            .isTrue();
                }
            } catch (SaslAuthenticationFailure e) {
                failed = true;
                assertNoSecret(e);
            }
            assertCompleteOnlyAsTheUser(exchange);
        }
    }

    /**
     * A client-final message whose fields before the proof come from the fuzzer, with the proof a client knowing the
     * password would compute over the exchange so far (RFC 5802 section 3).
     */
    private static byte[] finalMessage(
            ScramMechanism mechanism, String clientFirst, String serverFirst, String withoutProof) {
        int bareAt = clientFirst.indexOf(',', clientFirst.indexOf(',') + 1) + 1;
        String clientFirstBare = clientFirst.substring(bareAt);
        byte[] salted = mechanism.saltedPassword(PASSWORD, SALT, ITERATIONS);
        byte[] clientKey = mechanism.hmac(salted, "Client Key".getBytes(UTF_8));
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] signature = mechanism.hmac(mechanism.hash(clientKey), authMessage.getBytes(UTF_8));
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(UTF_8);
    }

    private static void assertCompleteOnlyAsTheUser(SaslServerExchange exchange) {
        if (exchange.complete()) {
            assertThat(exchange.authorizationId()).isEqualTo(USER);
        }
    }

    private static void assertNoSecret(SaslAuthenticationFailure e) {
        assertThat(e.getMessage()).isNotNull().doesNotContain(PASSWORD);
    }
}
