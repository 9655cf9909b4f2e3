package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

class PgEndpointTest {

  private static PgEndpoint endpoint(String host, String database) {
    return new PgEndpoint(host, 5432, database, "u", "secret", "require", "", "", "", "");
  }

  /**
   * What pgjdbc will connect with: URL parameters override properties, so this is the whole truth.
   */
  private static Properties effective(PgEndpoint e) {
    return Driver.parseURL(e.url(), e.properties(false));
  }

  @Test
  void aDatabaseNameCarryingUrlParametersIsUsedLiterallyAndCannotOverrideTheTlsMode() {
    Properties p = effective(endpoint("db.example", "shop?sslmode=disable&user=postgres"));
    assertThat(PGProperty.PG_DBNAME.getOrDefault(p))
        .isEqualTo("shop?sslmode=disable&user=postgres");
    assertThat(PGProperty.SSL_MODE.getOrDefault(p)).isEqualTo("require");
    assertThat(PGProperty.USER.getOrDefault(p)).isEqualTo("u");
  }

  @Test
  void theUrlHoldsOnlyHostPortAndTheEncodedDatabase() {
    assertThat(endpoint("db.example", "my shop/ä").url())
        .isEqualTo("jdbc:postgresql://db.example:5432/my+shop%2F%C3%A4");
    assertThat(PGProperty.PG_DBNAME.getOrDefault(effective(endpoint("db.example", "my shop/ä"))))
        .isEqualTo("my shop/ä");
    assertThat(endpoint("::1", "shop").url()).isEqualTo("jdbc:postgresql://[::1]:5432/shop");
    assertThat(endpoint("db.example", "shop").url()).doesNotContain("secret", "require");
  }

  @Test
  void aReplicationConnectionAttemptIsBoundedAsAWhole() {
    PgEndpoint e = new PgEndpoint("db.example", 5432, "shop", "u", "", "disable", "", "", "", "");
    assertThat(PGProperty.LOGIN_TIMEOUT.getOrDefault(e.properties(true)))
        .isEqualTo(Integer.toString(PgEndpoint.LOGIN_TIMEOUT_SECONDS));
  }
}
