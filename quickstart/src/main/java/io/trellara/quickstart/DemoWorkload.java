package io.trellara.quickstart;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Random;

/** The demo shop: schema on both sides, and the transactions the source runs. */
final class DemoWorkload {
  static final String SCHEMA = "trellara_demo";
  static final int CUSTOMERS = 50;
  static final int PRODUCTS = 20;

  /** Tables and their primary keys, in verification order. */
  static final String[][] TABLES = {
    {"customer", "id"},
    {"product", "id"},
    {"orders", "id"},
    {"order_line", "order_id, line_no"},
    {"payment", "id"},
  };

  private final Db source;
  private final Random random = new Random(42);
  private final BigDecimal[] prices = new BigDecimal[PRODUCTS + 1];
  private long nextOrderId = 1;
  private long nextPaymentId = 1;
  private int transactions;

  DemoWorkload(Db source) {
    this.source = source;
    for (int p = 1; p <= PRODUCTS; p++) {
      prices[p] = BigDecimal.valueOf(150 + p * 137L, 2); // 2.87 .. 28.90
    }
  }

  /** Same DDL on both sides (the initial schema is not replicated; later DDL is). */
  static String[] schemaDdl() {
    // the target checks its foreign keys at commit: it accepts only whole transactions
    String fk = " DEFERRABLE INITIALLY DEFERRED";
    return new String[] {
      "DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE",
      "CREATE SCHEMA " + SCHEMA,
      "CREATE TABLE "
          + SCHEMA
          + ".customer (id int PRIMARY KEY, name text NOT NULL, email text,"
          + " created_at timestamptz NOT NULL)",
      "CREATE TABLE "
          + SCHEMA
          + ".product (id int PRIMARY KEY, sku text NOT NULL UNIQUE, name text NOT NULL,"
          + " price numeric(10,2) NOT NULL, stock int NOT NULL CHECK (stock >= 0), description text)",
      "CREATE TABLE "
          + SCHEMA
          + ".orders (id bigint PRIMARY KEY, customer_id int NOT NULL REFERENCES "
          + SCHEMA
          + ".customer"
          + fk
          + ", status text NOT NULL, total numeric(14,2) NOT NULL,"
          + " created_at timestamptz NOT NULL)",
      "CREATE TABLE "
          + SCHEMA
          + ".order_line (order_id bigint NOT NULL REFERENCES "
          + SCHEMA
          + ".orders"
          + fk
          + ", line_no int NOT NULL, product_id int NOT NULL REFERENCES "
          + SCHEMA
          + ".product"
          + fk
          + ", qty int NOT NULL, unit_price numeric(10,2) NOT NULL, PRIMARY KEY (order_id, line_no))",
      "CREATE TABLE "
          + SCHEMA
          + ".payment (id bigint PRIMARY KEY, order_id bigint NOT NULL REFERENCES "
          + SCHEMA
          + ".orders"
          + fk
          + ", amount numeric(14,2) NOT NULL, method text NOT NULL,"
          + " paid_at timestamptz NOT NULL)",
    };
  }

  static String tableList() {
    StringBuilder b = new StringBuilder();
    for (String[] t : TABLES) {
      b.append(b.length() == 0 ? "" : ",").append(SCHEMA).append('.').append(t[0]);
    }
    return b.toString();
  }

  int transactions() {
    return transactions;
  }

  /**
   * The demo (after {@link #prefill}): {@code orders} orders, a TOASTed description, one order of
   * {@code rows} lines, an ADD COLUMN and orders using it; each step a line in the report. Returns
   * how many source transactions committed.
   */
  int run(int orders, int rows, ConsoleReport report) throws SQLException {
    report.step("workload:");
    for (int i = 0; i < orders; i++) {
      order(null, null);
    }
    report.step(
        "  "
            + orders
            + " orders: each order + 1-5 lines + payment + stock decrements in ONE transaction");
    largeDescription(1);
    order(null, 1);
    report.step(
        String.format(
            Locale.ROOT,
            "  TOAST: a %,d-byte product description (stored out of line), then an"
                + " order that updates that product's stock and leaves the description untouched",
            descriptionBytes(1)));
    long l0 = System.nanoTime();
    largeOrder(rows);
    report.step(
        String.format(
            Locale.ROOT,
            "  large transaction: one order with %,d lines, its payment and stock"
                + " decrements (%.1f s on the source)",
            rows,
            ConsoleReport.millisSince(l0) / 1000.0));
    addChannelColumn();
    int after = Math.max(1, Math.min(20, orders));
    for (int i = 0; i < after; i++) {
      order(i % 2 == 0 ? "mobile" : "web", null);
    }
    report.step(
        "  DDL: ALTER TABLE "
            + SCHEMA
            + ".orders ADD COLUMN channel ... (+ an UPDATE, one transaction),"
            + " added on the target by structured schema evolution; then "
            + after
            + " orders using the new column");
    report.step(String.format(Locale.ROOT, "  %,d source transactions committed", transactions));
    return transactions;
  }

  /**
   * The source's data before any connector exists: the source's initial snapshot
   * (snapshot.mode=initial) carries it to the target as one transaction, which counts as one of
   * {@link #transactions()}.
   */
  void prefill(ConsoleReport report) throws SQLException {
    seed();
    report.step(
        "pre-filled source: "
            + CUSTOMERS
            + " customers, "
            + PRODUCTS
            + " products committed before the"
            + " connectors start; the source's initial snapshot loads them in one target transaction");
  }

  /** Customers and products (with a large stock) in one transaction. */
  void seed() throws SQLException {
    inTransaction(
        c -> {
          try (Statement s = c.createStatement()) {
            s.execute(
                "INSERT INTO "
                    + SCHEMA
                    + ".customer SELECT g, 'Customer ' || g, 'customer' || g"
                    + " || '@example.com', timestamptz '2026-01-01 09:00:00+00' + g * interval '1 hour'"
                    + " FROM generate_series(1, "
                    + CUSTOMERS
                    + ") g");
          }
          try (PreparedStatement p =
              c.prepareStatement(
                  "INSERT INTO "
                      + SCHEMA
                      + ".product (id, sku, name, price, stock) VALUES (?, ?, ?, ?, 10000000)")) {
            for (int i = 1; i <= PRODUCTS; i++) {
              p.setInt(1, i);
              p.setString(2, String.format("SKU-%04d", i));
              p.setString(3, "Product " + i);
              p.setBigDecimal(4, prices[i]);
              p.addBatch();
            }
            p.executeBatch();
          }
        });
  }

  /**
   * One order: order row, 1-5 lines, a payment and the stock decrements, all in one transaction.
   */
  void order(String channel, Integer forcedProduct) throws SQLException {
    inTransaction(
        c -> {
          long orderId = nextOrderId++;
          int lines = 1 + random.nextInt(5);
          int customer = 1 + random.nextInt(CUSTOMERS);
          try (PreparedStatement o =
              c.prepareStatement(
                  "INSERT INTO "
                      + SCHEMA
                      + ".orders (id, customer_id,"
                      + " status, total, created_at"
                      + (channel != null ? ", channel" : "")
                      + ") VALUES (?, ?, 'paid', 0, now()"
                      + (channel != null ? ", ?" : "")
                      + ")")) {
            o.setLong(1, orderId);
            o.setInt(2, customer);
            if (channel != null) {
              o.setString(3, channel);
            }
            o.executeUpdate();
          }
          BigDecimal total = BigDecimal.ZERO;
          try (PreparedStatement line =
                  c.prepareStatement(
                      "INSERT INTO " + SCHEMA + ".order_line VALUES (?, ?, ?, ?, ?)");
              PreparedStatement stock =
                  c.prepareStatement(
                      "UPDATE " + SCHEMA + ".product SET stock = stock - ? WHERE id = ?")) {
            for (int l = 1; l <= lines; l++) {
              int product =
                  l == 1 && forcedProduct != null ? forcedProduct : 1 + random.nextInt(PRODUCTS);
              int qty = 1 + random.nextInt(3);
              line.setLong(1, orderId);
              line.setInt(2, l);
              line.setInt(3, product);
              line.setInt(4, qty);
              line.setBigDecimal(5, prices[product]);
              line.addBatch();
              stock.setInt(1, qty);
              stock.setInt(2, product);
              stock.addBatch();
              total = total.add(prices[product].multiply(BigDecimal.valueOf(qty)));
            }
            line.executeBatch();
            stock.executeBatch();
          }
          try (PreparedStatement t =
                  c.prepareStatement("UPDATE " + SCHEMA + ".orders SET total = ? WHERE id = ?");
              PreparedStatement pay =
                  c.prepareStatement(
                      "INSERT INTO " + SCHEMA + ".payment VALUES (?, ?, ?, ?, now())")) {
            t.setBigDecimal(1, total);
            t.setLong(2, orderId);
            t.executeUpdate();
            pay.setLong(1, nextPaymentId++);
            pay.setLong(2, orderId);
            pay.setBigDecimal(3, total);
            pay.setString(4, random.nextBoolean() ? "card" : "invoice");
            pay.executeUpdate();
          }
        });
  }

  /** A ~200 kB description (stored out of line, TOASTed) in its own transaction. */
  void largeDescription(int product) throws SQLException {
    inTransaction(
        c -> {
          try (Statement s = c.createStatement()) {
            s.execute(
                "UPDATE "
                    + SCHEMA
                    + ".product SET description = (SELECT string_agg(md5(g::text || 'x'),"
                    + " ' ') FROM generate_series(1, 6000) g) WHERE id = "
                    + product);
          }
        });
  }

  long descriptionBytes(int product) {
    return source.queryLong(
        "SELECT octet_length(description) FROM " + SCHEMA + ".product WHERE id = " + product);
  }

  /** One order with {@code rows} lines, its payment and the stock decrements: one transaction. */
  void largeOrder(int rows) throws SQLException {
    inTransaction(
        c -> {
          long orderId = nextOrderId++;
          try (Statement s = c.createStatement()) {
            s.execute(
                "INSERT INTO "
                    + SCHEMA
                    + ".orders (id, customer_id, status, total, created_at) VALUES ("
                    + orderId
                    + ", 1, 'paid', 0, now())");
            s.execute(
                "INSERT INTO "
                    + SCHEMA
                    + ".order_line SELECT "
                    + orderId
                    + ", g, p.id, 1 + g % 3, p.price"
                    + " FROM generate_series(1, "
                    + rows
                    + ") g JOIN "
                    + SCHEMA
                    + ".product p ON p.id = 1 + g % "
                    + PRODUCTS);
            s.execute(
                "UPDATE "
                    + SCHEMA
                    + ".product p SET stock = p.stock - l.q FROM (SELECT product_id,"
                    + " sum(qty) q FROM "
                    + SCHEMA
                    + ".order_line WHERE order_id = "
                    + orderId
                    + " GROUP BY product_id) l WHERE p.id = l.product_id");
            s.execute(
                "UPDATE "
                    + SCHEMA
                    + ".orders SET total = (SELECT sum(qty * unit_price) FROM "
                    + SCHEMA
                    + ".order_line WHERE order_id = "
                    + orderId
                    + ") WHERE id = "
                    + orderId);
            s.execute(
                "INSERT INTO "
                    + SCHEMA
                    + ".payment SELECT "
                    + (nextPaymentId++)
                    + ", id, total, 'invoice',"
                    + " now() FROM "
                    + SCHEMA
                    + ".orders WHERE id = "
                    + orderId);
          }
        });
  }

  /**
   * ALTER TABLE orders ADD COLUMN channel and its backfill, in one transaction: the sink adds the
   * column by structured schema evolution (no statement text runs on the target), and the
   * backfilled rows carry it.
   */
  void addChannelColumn() throws SQLException {
    inTransaction(
        c -> {
          try (Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + SCHEMA + ".orders ADD COLUMN channel text");
            s.execute(
                "UPDATE "
                    + SCHEMA
                    + ".orders SET channel = CASE WHEN id % 10 = 0 THEN 'phone' ELSE 'web'"
                    + " END");
          }
        });
  }

  private interface Work {
    void run(Connection c) throws SQLException;
  }

  private void inTransaction(Work work) throws SQLException {
    try (Connection c = source.connect()) {
      c.setAutoCommit(false);
      try {
        work.run(c);
        c.commit();
        transactions++;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
