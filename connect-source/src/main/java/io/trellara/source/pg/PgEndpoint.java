package io.trellara.source.pg;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.PGProperty;

/**
 * How to reach the source server, for ordinary and replication connections. Every session is pinned
 * to the settings the wire contract's text values assume (UTC, ISO dates, postgres intervals, exact
 * floats, hex bytea), whatever the server's or the worker's defaults.
 */
public record PgEndpoint(
    String host,
    int port,
    String database,
    String user,
    String password,
    String sslMode,
    String sslRootCert,
    String sslCert,
    String sslKey,
    String sslPassword) {

  public static final int LOGIN_TIMEOUT_SECONDS = 20;
  static final String SESSION_OPTIONS =
      "-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres"
          + " -c extra_float_digits=3 -c bytea_output=hex";

  /**
   * Only host, port and the URL-encoded database name: pgjdbc lets URL parameters override
   * connection properties, so a database name like {@code shop?sslmode=disable} must never reach
   * the URL raw. Everything else (user, password, TLS, options) goes through {@link
   * #properties(boolean)}.
   */
  public String url() {
    String h =
        host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host; // IPv6 literal
    return "jdbc:postgresql://"
        + h
        + ":"
        + port
        + "/"
        + URLEncoder.encode(database, StandardCharsets.UTF_8);
  }

  public Properties properties(boolean replication) {
    Properties p = new Properties();
    PGProperty.USER.set(p, user);
    if (password != null && !password.isEmpty()) {
      PGProperty.PASSWORD.set(p, password);
    }
    PGProperty.SSL_MODE.set(p, sslMode);
    setIfPresent(p, PGProperty.SSL_ROOT_CERT, sslRootCert);
    setIfPresent(p, PGProperty.SSL_CERT, sslCert);
    setIfPresent(p, PGProperty.SSL_KEY, sslKey);
    setIfPresent(p, PGProperty.SSL_PASSWORD, sslPassword);
    PGProperty.OPTIONS.set(p, SESSION_OPTIONS);
    PGProperty.APPLICATION_NAME.set(
        p, replication ? "trellara-source-replication" : "trellara-source");
    PGProperty.CONNECT_TIMEOUT.set(p, 10);
    if (replication) {
      // bounds the whole attempt, start-up and authentication included, so a reconnecting engine is
      // never
      // stuck on a server that accepts TCP but does not answer (close() cannot abort a connection
      // that
      // is not made yet)
      PGProperty.LOGIN_TIMEOUT.set(p, LOGIN_TIMEOUT_SECONDS);
      PGProperty.REPLICATION.set(p, "database");
      PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "10");
      PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    }
    return p;
  }

  private static void setIfPresent(Properties p, PGProperty key, String value) {
    if (value != null && !value.isBlank()) {
      key.set(p, value);
    }
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), properties(false));
  }

  /**
   * pgjdbc sends the JVM's time zone as a startup parameter, which overrides {@code options}; pin
   * the walsender's session explicitly, since it formats every text value the envelopes carry.
   */
  public Connection connectForReplication() throws SQLException {
    return pinned(DriverManager.getConnection(url(), properties(true)));
  }

  /**
   * An ordinary connection pinned like the walsender (the snapshot reads text values the same way),
   * named {@code applicationName} in pg_stat_activity.
   */
  public Connection connectPinned(String applicationName) throws SQLException {
    Properties p = properties(false);
    PGProperty.APPLICATION_NAME.set(p, applicationName);
    return pinned(DriverManager.getConnection(url(), p));
  }

  private static Connection pinned(Connection c) throws SQLException {
    try (var st = c.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      st.execute("SET DateStyle = 'ISO'");
      st.execute("SET IntervalStyle = 'postgres'");
      st.execute("SET extra_float_digits = 3");
      st.execute("SET bytea_output = 'hex'");
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  @Override
  public String toString() {
    return user + "@" + host + ":" + port + "/" + database; // never the password
  }
}
