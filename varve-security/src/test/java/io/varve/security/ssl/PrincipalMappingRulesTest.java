package io.varve.security.ssl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PrincipalMappingRulesTest {

    @Test
    void defaultKeepsTheWholeDistinguishedName() {
        assertThat(PrincipalMappingRules.DEFAULT.map("CN=alice,OU=eng,O=varve")).contains("CN=alice,OU=eng,O=varve");
    }

    @Test
    void theFirstMatchingRuleNamesThePrincipalAndLaterRulesAreNotTried() {
        PrincipalMappingRules rules = PrincipalMappingRules.parse(
                "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/, RULE:^CN=(.*?),OU=(.*?),O=(.*?)$/$1@$2/L, DEFAULT");
        assertThat(rules.map("CN=kafka-svc,OU=ServiceUsers,O=Unknown")).contains("kafka-svc");
        assertThat(rules.map("CN=Alice,OU=ENG,O=Varve")).contains("alice@eng");
        assertThat(rules.map("CN=bob")).contains("CN=bob");
    }

    @Test
    void upperCaseFlagAndEscapedSlashes() {
        PrincipalMappingRules rules = PrincipalMappingRules.parse("RULE:^CN=([^,]*)\\/x.*$/$1\\/y/U");
        assertThat(rules.map("CN=alice/x,O=v")).contains("ALICE/Y");
    }

    @Test
    void aNameNoRuleMatchesHasNoPrincipal() {
        PrincipalMappingRules rules = PrincipalMappingRules.parse("RULE:^CN=(.*),O=varve$/$1/");
        assertThat(rules.map("CN=mallory,O=elsewhere")).isEmpty();
    }

    @Test
    void malformedRulesAreRefusedWithASentence() {
        assertThatThrownBy(() -> PrincipalMappingRules.parse("RULE:^CN=(.*)$/$1"))
                .hasMessageContaining("closing '/'");
        assertThatThrownBy(() -> PrincipalMappingRules.parse("SOMETHING"))
                .hasMessageContaining("expected DEFAULT or RULE");
        assertThatThrownBy(() -> PrincipalMappingRules.parse("RULE:([/x/")).hasMessageContaining("invalid pattern");
        assertThatThrownBy(() -> PrincipalMappingRules.parse(" , ")).hasMessageContaining("names no rule");
    }
}
