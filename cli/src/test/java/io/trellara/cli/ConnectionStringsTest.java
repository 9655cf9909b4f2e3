package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConnectionStringsTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "jdbc:postgresql://db:5432/shop?user=app&password=s3cret&sslmode=require"
            + "|jdbc:postgresql://db:5432/shop?user=app&password=***&sslmode=require",
        "jdbc:postgresql://db/shop?PASSWORD=s3cret|jdbc:postgresql://db/shop?PASSWORD=***",
        "jdbc:postgresql://db/shop?sslmode=verify-full&sslpassword=k3y|jdbc:postgresql://db/shop?sslmode=verify-full&sslpassword=***",
        "postgresql://app:s3cret@db:5432/shop|postgresql://app:***@db:5432/shop",
        "host=db user=app password=s3cret dbname=shop|host=db user=app password=*** dbname=shop",
        "host=db password='s3 cret' dbname=shop|host=db password=*** dbname=shop",
        "jdbc:postgresql://db:5432/shop|jdbc:postgresql://db:5432/shop",
        "postgresql://app@db/shop|postgresql://app@db/shop"
      })
  void passwordsAreMaskedAndTheRestIsKept(String url, String shown) {
    assertThat(ConnectionStrings.masked(url))
        .isEqualTo(shown)
        .doesNotContain("s3cret")
        .doesNotContain("k3y");
  }

  @Test
  void nullStaysNull() {
    assertThat(ConnectionStrings.masked(null)).isNull();
  }
}
