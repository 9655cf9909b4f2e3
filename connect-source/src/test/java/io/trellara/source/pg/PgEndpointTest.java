package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  @Test
  void aHostListBecomesAMultiHostUrlWithEachEntrysPortOrTheDefault() {
    assertThat(endpoint("pg-a:5433, pg-b,[::1]:6000,10.0.0.7", "shop").url())
        .isEqualTo("jdbc:postgresql://pg-a:5433,pg-b:5432,[::1]:6000,10.0.0.7:5432/shop");
    assertThat(PgEndpoint.hosts("fe80::1", 5432))
        .containsExactly(new PgEndpoint.HostPort("fe80::1", 5432));
    Properties p = effective(endpoint("pg-a:5433,pg-b:5434", "shop"));
    assertThat(PGProperty.PG_HOST.getOrDefault(p)).isEqualTo("pg-a,pg-b");
    assertThat(PGProperty.PG_PORT.getOrDefault(p)).isEqualTo("5433,5434");
    assertThat(endpoint("pg-a:5433,pg-b", "shop").toString())
        .isEqualTo("u@pg-a:5433,pg-b:5432/shop");
  }

  @Test
  void anEntryThatIsNotHostAndPortIsRefusedNamingIt() {
    assertThatThrownBy(() -> PgEndpoint.hosts("pg-a,pg-b:99999", 5432))
        .hasMessageContaining("'pg-b:99999' has port '99999'");
    assertThatThrownBy(() -> PgEndpoint.hosts("pg-a,", 5432))
        .hasMessageContaining("'' is not a host name");
    assertThatThrownBy(() -> PgEndpoint.hosts("db/shop?sslmode=disable", 5432))
        .hasMessageContaining("'db/shop?sslmode=disable' is not a host name");
    assertThatThrownBy(() -> PgEndpoint.hosts("[::1", 5432)).hasMessageContaining("never closed");
  }

  @Test
  void aFailoverEndpointConnectsToThePrimaryOnlyAndRechecksHostsQuickly() {
    PgEndpoint plain = endpoint("pg-a,pg-b", "shop");
    PgEndpoint failover =
        new PgEndpoint("pg-a,pg-b", 5432, "shop", "u", "", "disable", "", "", "", "", true);
    for (boolean replication : new boolean[] {false, true}) {
      assertThat(PGProperty.TARGET_SERVER_TYPE.getOrDefault(failover.properties(replication)))
          .isEqualTo("primary");
      assertThat(PGProperty.HOST_RECHECK_SECONDS.getOrDefault(failover.properties(replication)))
          .isEqualTo("1");
      assertThat(PGProperty.TARGET_SERVER_TYPE.getOrDefault(plain.properties(replication)))
          .isEqualTo("any");
    }
  }
}
