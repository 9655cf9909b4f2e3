package io.trellara.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OptionsTest {

  @Test
  void defaultsRunEverythingEmbedded() {
    Options o = Options.parse();
    assertThat(o.embeddedSource() && o.embeddedTarget() && o.embeddedKafka()).isTrue();
    assertThat(o.rows).isEqualTo(100_000);
    assertThat(o.restPort).isEqualTo(8083);
    assertThat(o.exitAfterVerify).isFalse();
  }

  @Test
  void flagsTakeSeparateOrInlineValues() {
    Options o =
        Options.parse(
            "--rows",
            "2_000",
            "--orders=7",
            "--exit-after-verify",
            "--source-jdbc",
            "jdbc:postgresql://db1:5432/shop",
            "--target-jdbc=jdbc:postgresql://db2/shop",
            "--bootstrap-servers",
            "k1:9092,k2:9092",
            "--source-password",
            "a=b");
    assertThat(o.rows).isEqualTo(2000);
    assertThat(o.orders).isEqualTo(7);
    assertThat(o.exitAfterVerify).isTrue();
    assertThat(o.embeddedSource() || o.embeddedTarget() || o.embeddedKafka()).isFalse();
    assertThat(o.bootstrapServers).isEqualTo("k1:9092,k2:9092");
    assertThat(o.sourcePassword).isEqualTo("a=b");
  }

  @Test
  void mistakesAreReportedWithAHint() {
    assertThatThrownBy(() -> Options.parse("--bogus"))
        .hasMessageContaining("unknown option --bogus");
    assertThatThrownBy(() -> Options.parse("--rows", "many"))
        .hasMessageContaining("expects a number");
    assertThatThrownBy(() -> Options.parse("--rows")).hasMessageContaining("needs a value");
    assertThatThrownBy(() -> Options.parse("--rows", "0")).hasMessageContaining("at least 1");
  }

  @Test
  void jdbcUrlsGiveTheSourceConnectorItsHostPortAndDatabase() {
    Db db = new Db("source", "jdbc:postgresql://db1:6543/shop?sslmode=require", "app", "s3cret");
    assertThat(db.host).isEqualTo("db1");
    assertThat(db.port).isEqualTo(6543);
    assertThat(db.database).isEqualTo("shop");
    assertThat(new Db("t", "jdbc:postgresql://db2/shop", "postgres", "").port).isEqualTo(5432);
  }

  @Test
  void thePrintedConnectionUriNamesTheUserButNeverThePassword() {
    Db db = new Db("source", "jdbc:postgresql://db1:6543/shop?password=s3cret", "app", "s3cret");
    assertThat(db.psql()).isEqualTo("postgresql://app@db1:6543/shop").doesNotContain("s3cret");
    assertThat(ConsoleReport.passwordHint(false, "--source-password"))
        .contains("--source-password")
        .contains("PGPASSWORD");
    assertThat(ConsoleReport.passwordHint(true, "--source-password")).contains("trust");
  }

  @Test
  void aBadUrlIsNotEchoedBecauseItMayHoldAPassword() {
    assertThatThrownBy(() -> new Db("target", "jdbc:mysql://h/db?password=s3cret", "app", "s3cret"))
        .hasMessageContaining("target URL")
        .hasMessageNotContaining("s3cret");
  }
}
