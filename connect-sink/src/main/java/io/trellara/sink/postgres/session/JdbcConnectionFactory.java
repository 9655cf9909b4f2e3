package io.trellara.sink.postgres.session;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * {@link ConnectionFactory} over pgjdbc's {@link DriverManager}. TLS and other driver settings are
 * passed as pgjdbc connection properties ({@code ssl}, {@code sslmode}, {@code sslrootcert}, {@code
 * sslcert}, {@code sslkey}, {@code sslpassword}, ...).
 */
public final class JdbcConnectionFactory implements ConnectionFactory {
  private final String url;
  private final Properties properties;

  public JdbcConnectionFactory(
      String url, String user, String password, Properties driverProperties) {
    this.url = Objects.requireNonNull(url, "url");
    this.properties = new Properties();
    if (driverProperties != null) {
      this.properties.putAll(driverProperties);
    }
    if (user != null) {
      properties.setProperty("user", user);
    }
    if (password != null) {
      properties.setProperty("password", password);
    }
    properties.putIfAbsent("ApplicationName", "trellara-sink");
  }

  @Override
  public Connection open() throws SQLException {
    return DriverManager.getConnection(url, properties);
  }

  @Override
  public Connection openBounded(int seconds) throws SQLException {
    Properties bounded = new Properties();
    bounded.putAll(properties);
    bounded.setProperty("connectTimeout", Integer.toString(seconds));
    bounded.setProperty("loginTimeout", Integer.toString(seconds));
    bounded.setProperty("socketTimeout", Integer.toString(seconds));
    bounded.setProperty("ApplicationName", "trellara-sink-watchdog");
    return DriverManager.getConnection(url, bounded);
  }

  @Override
  public String toString() {
    return "JdbcConnectionFactory[" + url + "]";
  }
}
