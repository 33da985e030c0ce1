package io.varve.security.sasl;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.security.Principal;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** SCRAM with {@code tokenauth=true}: the token id and its HMAC authenticate the token's owner, as in Kafka. */
class DelegationTokenScramTest {
    private static final ScramMechanism SHA512 = ScramMechanism.SCRAM_SHA_512;
    private static final String TOKEN_ID = "bWFkZS11cC10b2tlbi1pZA";
    private static final long EXPIRY_MS = 1_700_000_000_000L;
    private final DelegationTokenHmac hmac = new DelegationTokenHmac("the-cluster-secret");
    private final ScramCredential tokenCredential = hmac.scramCredential(TOKEN_ID, SHA512);

    private ScramExchange exchange() {
        return new ScramExchange(
                SHA512,
                (user, mechanism) -> Optional.empty(),
                () -> "servernonce",
                (tokenId, mechanism) -> tokenId.equals(TOKEN_ID)
                        ? Optional.of(
                                new DelegationTokenCredential(tokenCredential, Principal.user("alice"), EXPIRY_MS))
                        : Optional.empty());
    }

    /** The client side of one exchange with {@code password}; returns the server's final answer. */
    private static byte[] authenticate(ScramExchange exchange, String user, String password, String extensions)
            throws SaslAuthenticationFailure {
        String clientFirstBare = "n=" + user + ",r=clientnonce" + extensions;
        String serverFirst = new String(exchange.evaluate(("n,," + clientFirstBare).getBytes(UTF_8)), UTF_8);
        String[] fields = serverFirst.split(",");
        String nonce = fields[0].substring(2);
        byte[] salt = Base64.getDecoder().decode(fields[1].substring(2));
        int iterations = Integer.parseInt(fields[2].substring(2));
        byte[] salted = SHA512.saltedPassword(password, salt, iterations);
        byte[] clientKey = SHA512.hmac(salted, "Client Key".getBytes(UTF_8));
        String withoutProof = "c=biws,r=" + nonce;
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] signature = SHA512.hmac(SHA512.hash(clientKey), authMessage.getBytes(UTF_8));
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        return exchange.evaluate((withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(UTF_8));
    }

    @Test
    void theTokenIdAndItsHmacAuthenticateTheOwnerMarkedTokenAuthenticatedUntilTheTokenExpires() throws Exception {
        ScramExchange exchange = exchange();
        String password = Base64.getEncoder().encodeToString(hmac.of(TOKEN_ID));
        authenticate(exchange, TOKEN_ID, password, ",tokenauth=true");
        assertThat(exchange.complete()).isTrue();
        assertThat(exchange.principal()).isEqualTo(Principal.user("alice"));
        assertThat(exchange.principal().tokenAuthenticated()).isTrue();
        assertThat(exchange.credentialExpiryMs()).hasValue(EXPIRY_MS);
    }

    @Test
    void aWrongHmacAnUnknownTokenOrNoTokenLookupIsRefused() {
        assertThatThrownBy(() -> authenticate(exchange(), TOKEN_ID, "d3Jvbmc=", ",tokenauth=true"))
                .hasMessageContaining("invalid credentials");
        assertThatThrownBy(() -> authenticate(exchange(), "other-token", "x", ",tokenauth=true"))
                .hasMessage("Authentication failed: Invalid user credentials");
        // without tokenauth the token id is just an unknown user name
        assertThatThrownBy(() ->
                        authenticate(exchange(), TOKEN_ID, Base64.getEncoder().encodeToString(hmac.of(TOKEN_ID)), ""))
                .hasMessage("Authentication failed: Invalid user credentials");
        ScramExchange disabled = new ScramExchange(SHA512, (user, mechanism) -> Optional.empty(), () -> "n");
        assertThatThrownBy(() -> disabled.evaluate(("n,,n=" + TOKEN_ID + ",r=abc,tokenauth=true").getBytes(UTF_8)))
                .hasMessageContaining("delegation tokens are not enabled");
    }

    @Test
    void theHmacDependsOnTheSecretAndTheTokenId() {
        assertThat(hmac.of(TOKEN_ID)).hasSize(64).isEqualTo(new DelegationTokenHmac("the-cluster-secret").of(TOKEN_ID));
        assertThat(hmac.of(TOKEN_ID)).isNotEqualTo(new DelegationTokenHmac("another-secret").of(TOKEN_ID));
        assertThat(hmac.matches(TOKEN_ID, hmac.of(TOKEN_ID))).isTrue();
        assertThat(hmac.matches("other", hmac.of(TOKEN_ID))).isFalse();
        assertThat(Principal.tokenOwner(Principal.user("alice"))).isEqualTo(Principal.user("alice"));
    }
}
