package io.trellara.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code trellara snapshot}: sends a signal to a source connector, through its {@code
 * signal.kafka.topic} when its config (read through the Connect REST API) has one, else by
 * inserting it into its {@code signal.table} (ordered with the stream); {@code --via} chooses. The
 * source logs what it does with it.
 */
@Command(
    name = "snapshot",
    description =
        "Signal a source connector (through its signal.kafka.topic, or its signal.table) to"
            + " re-snapshot tables, or to stop, pause or resume an online snapshot. The source's"
            + " log says what it did.")
final class SnapshotCommand implements Callable<Integer> {

  /** A schema-qualified name as signal.table takes it, to put into SQL as it is. */
  private static final Pattern TABLE_NAME =
      Pattern.compile(
          "(\"([^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$]*)(\\.(\"([^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$]*))?");

  @Option(
      names = "--connect-url",
      required = true,
      paramLabel = "URL",
      description = "a Connect worker's REST URL, e.g. http://localhost:8083")
  String connectUrl;

  @Option(
      names = "--connector",
      required = true,
      paramLabel = "NAME",
      description = "the source connector to signal")
  String connector;

  @Option(
      names = "--source-jdbc",
      paramLabel = "URL",
      description =
          "the source database (jdbc:postgresql://host:port/db), where the signal row is inserted"
              + " (--via table)")
  String sourceJdbc;

  /** How a signal travels. */
  enum Via {
    TABLE,
    KAFKA
  }

  @Option(
      names = "--via",
      paramLabel = "table|kafka",
      converter = ViaConverter.class,
      description =
          "kafka: a record on the connector's signal.kafka.topic; table: a row in its"
              + " signal.table (default: kafka when the connector has signal.kafka.topic)")
  Via via;

  @Option(
      names = "--kafka-bootstrap",
      paramLabel = "HOST:PORT",
      description =
          "the signal topic's brokers (default: the connector's signal.kafka.bootstrap.servers,"
              + " else its kafka.bootstrap.servers)")
  String kafkaBootstrap;

  @Option(
      names = "--kafka-config",
      paramLabel = "FILE",
      description =
          "a properties file of producer settings (security.protocol, sasl.*, ssl.*) for the"
              + " signaller's principal")
  java.nio.file.Path kafkaConfig;

  @Option(names = "--source-user", paramLabel = "USER", description = "a role with INSERT on it")
  String sourceUser;

  @Option(
      names = "--source-password",
      paramLabel = "PASSWORD",
      defaultValue = "${env:TRELLARA_SOURCE_PASSWORD}",
      description = "default: $TRELLARA_SOURCE_PASSWORD")
  String sourcePassword;

  @Option(
      names = "--id",
      paramLabel = "ID",
      description = "the signal's id, as the source's log names it (default: cli-<uuid>)")
  String id;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Action action;

  static final class Action {
    @Option(
        names = "--table",
        paramLabel = "SCHEMA.TABLE",
        description = "a table to re-snapshot (repeatable)")
    List<String> tables = new ArrayList<>();

    @Option(names = "--stop", description = "stop the online snapshot in progress")
    boolean stop;

    @Option(names = "--pause", description = "pause the online snapshot in progress")
    boolean pause;

    @Option(names = "--resume", description = "resume a paused online snapshot")
    boolean resume;
  }

  @Option(
      names = "--where",
      paramLabel = "FILTER",
      description = "a row filter for the one --table (a SQL condition over its columns)")
  String where;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The signal row: its type and data columns. */
  record SignalRow(String type, String data) {}

  @Override
  public Integer call() throws SQLException, java.io.IOException {
    PrintWriter out = spec.commandLine().getOut();
    SignalRow row = row(action, where);
    java.util.Map<String, String> config = new ConnectRest(connectUrl).status(connector).config();
    String signalId = id == null ? "cli-" + UUID.randomUUID() : id;
    String topic = config.getOrDefault("signal.kafka.topic", "").strip();
    if (via == Via.KAFKA || (via == null && !topic.isEmpty())) {
      if (topic.isEmpty()) {
        throw new IllegalArgumentException(
            "connector " + connector + " has no signal.kafka.topic: set it to send signals so");
      }
      String brokers = kafkaBootstrap != null ? kafkaBootstrap : SignalTopicSender.brokers(config);
      var stored =
          SignalTopicSender.send(
              SignalTopicSender.producerConfig(brokers, kafkaConfig),
              topic,
              connector,
              SignalTopicSender.value(signalId, row));
      out.println(
          "signal "
              + signalId
              + " ("
              + row.type()
              + (row.data() == null ? "" : ": " + row.data().replace("\n", ", "))
              + ") sent to topic "
              + topic
              + " (partition "
              + stored.partition()
              + ", offset "
              + stored.offset()
              + "); connector "
              + connector
              + " logs what it does with it");
      return 0;
    }
    if (sourceJdbc == null) {
      throw new IllegalArgumentException(
          "--source-jdbc is needed to insert the signal into the connector's signal.table");
    }
    String target = signalTable(connector, config.getOrDefault("signal.table", ""));
    try (Connection c = StatusQueries.connect(sourceJdbc, sourceUser, sourcePassword);
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO " + target + " (id, type, data) VALUES (?, ?, ?)")) {
      ps.setString(1, signalId);
      ps.setString(2, row.type());
      ps.setString(3, row.data());
      ps.executeUpdate();
    }
    out.println(
        "signal "
            + signalId
            + " ("
            + row.type()
            + (row.data() == null ? "" : ": " + row.data().replace("\n", ", "))
            + ") written to "
            + target
            + "; connector "
            + connector
            + " logs what it does with it");
    return 0;
  }

  /** The signal the options ask for; a usage error names a wrong combination. */
  static SignalRow row(Action a, String where) {
    if (a.tables.isEmpty()) {
      if (where != null) {
        throw new CommandLine.ParameterException(
            new CommandLine(new SnapshotCommand()), "--where goes with one --table");
      }
      return new SignalRow(
          a.stop ? "stop-snapshot" : a.pause ? "pause-snapshot" : "resume-snapshot", null);
    }
    if (where != null && a.tables.size() != 1) {
      throw new CommandLine.ParameterException(
          new CommandLine(new SnapshotCommand()), "--where goes with exactly one --table");
    }
    for (String t : a.tables) {
      if (!TABLE_NAME.matcher(t.strip()).matches()) {
        throw new CommandLine.ParameterException(
            new CommandLine(new SnapshotCommand()),
            "--table " + t + ": expected schema.table (SQL quoting allowed)");
      }
    }
    String data = String.join("\n", a.tables.stream().map(String::strip).toList());
    return new SignalRow("snapshot", where == null ? data : data + " WHERE " + where.strip());
  }

  /** table or kafka, any case. */
  static final class ViaConverter implements CommandLine.ITypeConverter<Via> {
    @Override
    public Via convert(String value) {
      return Via.valueOf(value.strip().toUpperCase(java.util.Locale.ROOT));
    }
  }

  /** The connector's signal.table as SQL, or why there is none. */
  static String signalTable(String connector, String configured) {
    if (configured == null || configured.isBlank()) {
      throw new IllegalArgumentException(
          "connector " + connector + " has no signal.table: set it to send signals");
    }
    String t = configured.strip();
    if (!TABLE_NAME.matcher(t).matches()) {
      throw new IllegalArgumentException(
          "connector " + connector + "'s signal.table '" + configured + "' is not schema.table");
    }
    return t;
  }
}
