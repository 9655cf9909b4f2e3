package io.trellara.source.pg;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;
import org.postgresql.PGProperty;

/**
 * How to reach the source server, for ordinary and replication connections. Every session is pinned
 * to the settings the wire contract's text values assume (UTC, ISO dates, postgres intervals, exact
 * floats, hex bytea), whatever the server's or the worker's defaults.
 *
 * <p>{@code host} is one host or a comma-separated list ({@code host}, {@code host:port}, {@code
 * [ipv6]}, {@code [ipv6]:port}; an entry without a port uses {@code port}), tried in order (see
 * {@link #hosts}). With {@code failover} (a failover slot, {@code slot.failover}) every connection
 * goes to the primary of that list ({@code targetServerType=primary}, host states re-checked after
 * one second): after a promotion the reconnecting task finds the promoted standby, and never
 * decodes on a standby whose synchronised slot it cannot use.
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
    String sslPassword,
    boolean failover) {

  /** One server of the host list. */
  public record HostPort(String host, int port) {
    @Override
    public String toString() {
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /** An endpoint without a failover slot. */
  public PgEndpoint(
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
    this(
        host,
        port,
        database,
        user,
        password,
        sslMode,
        sslRootCert,
        sslCert,
        sslKey,
        sslPassword,
        false);
  }

  /**
   * The servers of {@code value} (database.hostname) in order: entries separated by commas, each a
   * host name or address with an optional {@code :port} ({@code defaultPort} otherwise); an IPv6
   * literal with a port is written in brackets ({@code [::1]:5433}), one without may be bare.
   * Throws IllegalArgumentException naming the entry that is not one.
   */
  public static List<HostPort> hosts(String value, int defaultPort) {
    List<HostPort> hosts = new ArrayList<>();
    for (String raw : (value == null ? "" : value).split(",", -1)) {
      String e = raw.trim();
      String host;
      String port = null;
      if (e.startsWith("[")) {
        int close = e.indexOf(']');
        if (close < 0) {
          throw new IllegalArgumentException(
              "'" + e + "' opens [ for an IPv6 address, never closed");
        }
        host = e.substring(1, close);
        String rest = e.substring(close + 1);
        if (!rest.isEmpty()) {
          if (!rest.startsWith(":")) {
            throw new IllegalArgumentException("'" + e + "': only :port may follow ]");
          }
          port = rest.substring(1);
        }
      } else if (e.indexOf(':') >= 0 && e.indexOf(':') == e.lastIndexOf(':')) {
        host = e.substring(0, e.indexOf(':'));
        port = e.substring(e.indexOf(':') + 1);
      } else {
        host = e; // a name, an IPv4 address, or a bare IPv6 literal (several colons)
      }
      if (host.isEmpty() || !host.matches("[A-Za-z0-9._:%-]+")) {
        throw new IllegalArgumentException(
            "'"
                + e
                + "' is not a host name or address (letters, digits, '.', '-', '_', ':' and [] for"
                + " IPv6, then an optional :port; entries separated by commas)");
      }
      int p = defaultPort;
      if (port != null) {
        if (!port.matches("[0-9]{1,5}")
            || Integer.parseInt(port) < 1
            || Integer.parseInt(port) > 65535) {
          throw new IllegalArgumentException("'" + e + "' has port '" + port + "', not 1 to 65535");
        }
        p = Integer.parseInt(port);
      }
      hosts.add(new HostPort(host, p));
    }
    return hosts;
  }

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
    StringJoiner servers = new StringJoiner(",");
    hosts(host, port).forEach(h -> servers.add(h.toString())); // IPv6 literals in brackets
    return "jdbc:postgresql://"
        + servers
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
    if (failover) {
      // a failover slot is used on the primary only: after a promotion the promoted standby is the
      // one to find, and an unpromoted standby (its synchronised slot unusable) is skipped
      PGProperty.TARGET_SERVER_TYPE.set(p, "primary");
      PGProperty.HOST_RECHECK_SECONDS.set(p, 1);
    }
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
    String servers;
    try {
      StringJoiner j = new StringJoiner(",");
      hosts(host, port).forEach(h -> j.add(h.toString()));
      servers = j.toString();
    } catch (IllegalArgumentException e) {
      servers = host + ":" + port;
    }
    return user + "@" + servers + "/" + database; // never the password
  }
}
