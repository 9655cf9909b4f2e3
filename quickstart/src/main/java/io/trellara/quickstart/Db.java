package io.trellara.quickstart;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.postgresql.Driver;

/** One PostgreSQL database the quickstart talks to over JDBC (embedded or existing). */
final class Db {
  final String label;
  final String url;
  final String user;
  final String password;
  final String host;
  final int port;
  final String database;

  Db(String label, String url, String user, String password) {
    this.label = label;
    this.url = url;
    this.user = user;
    this.password = password == null ? "" : password;
    Properties parsed = Driver.parseURL(url, null);
    if (parsed == null) {
      // the URL is not echoed: it may carry a password parameter
      throw new IllegalArgumentException(
          "the "
              + label
              + " URL is not a PostgreSQL JDBC URL"
              + " (expected jdbc:postgresql://host:port/database)");
    }
    this.host = parsed.getProperty("PGHOST", "localhost").split(",")[0];
    this.port = Integer.parseInt(parsed.getProperty("PGPORT", "5432").split(",")[0]);
    this.database = parsed.getProperty("PGDBNAME");
  }

  Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    if (!password.isEmpty()) {
      props.setProperty("password", password);
    }
    props.setProperty("connectTimeout", "10");
    props.setProperty("ApplicationName", "trellara-quickstart");
    return DriverManager.getConnection(url, props);
  }

  void execute(String... statements) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(label + ": " + e.getMessage(), e);
    }
  }

  /** First column of the first row as a long; 0 when there is no row or it is null. */
  long queryLong(String sql) {
    String value = queryString(sql);
    return value == null ? 0 : new java.math.BigDecimal(value).longValue();
  }

  String queryString(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(label + ": " + e.getMessage(), e);
    }
  }

  /**
   * A libpq connection URI for psql: user, host, port and database, never the password (it is
   * printed).
   */
  String psql() {
    return "postgresql://"
        + URLEncoder.encode(user, StandardCharsets.UTF_8)
        + "@"
        + host
        + ":"
        + port
        + "/"
        + database;
  }

  @Override
  public String toString() {
    return label + " " + host + ":" + port + "/" + database;
  }
}
