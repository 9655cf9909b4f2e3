package io.trellara.plugin;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The project's shape, as rules the build enforces (docs/architecture.md): what each package may
 * import, no cycles between packages, no main class over 400 lines, no package over 20 files, and
 * the Connect tasks thin. Imports are judged on the compiled classes of every module the plugin
 * ships; sizes on the source files of every module.
 */
class ArchitectureRulesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /**
   * Packages that hold one class per variant of one kind, where splitting would only scatter the
   * kind: row identity's codecs (one per PostgreSQL type family).
   */
  private static final Set<String> MANY_FILES_BY_DESIGN = Set.of("io/trellara/identity/codec");

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.trellara");
    assertThat(classes.containPackage("io.trellara.sink.buffer")).isTrue();
  }

  @Test
  void theProtocolAndRowIdentityImportNothingOfKafkaJdbcOrTheConnectors() {
    noClasses()
        .that()
        .resideInAnyPackage("io.trellara.protocol..", "io.trellara.identity..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.kafka..",
            "java.sql..",
            "org.postgresql..",
            "io.trellara.source..",
            "io.trellara.sink..",
            "io.trellara.converter..")
        .check(classes);
  }

  @Test
  void theSinkBufferIsPure() {
    noClasses()
        .that()
        .resideInAPackage("io.trellara.sink.buffer..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "org.postgresql..",
            "org.apache.kafka..",
            "io.trellara.sink.postgres..",
            "io.trellara.sink.engine..",
            "io.trellara.sink.connect..")
        .because("the buffer takes records and time and returns decisions: no I/O, no port call")
        .check(classes);
  }

  @Test
  void theSinkPortKnowsOnlyTheDomain() {
    noClasses()
        .that()
        .resideInAPackage("io.trellara.sink.port..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "org.postgresql..",
            "org.apache.kafka..",
            "io.trellara.sink.postgres..",
            "io.trellara.sink.engine..",
            "io.trellara.sink.buffer..",
            "io.trellara.sink.connect..")
        .check(classes);
  }

  @Test
  void theSinkEngineDrivesThePortNotPostgresOrConnect() {
    noClasses()
        .that()
        .resideInAPackage("io.trellara.sink.engine..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "org.postgresql..",
            "org.apache.kafka..",
            "io.trellara.sink.postgres..",
            "io.trellara.sink.connect..")
        .check(classes);
  }

  @Test
  void thePostgresImplementationKnowsNothingAboveThePort() {
    noClasses()
        .that()
        .resideInAPackage("io.trellara.sink.postgres..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.kafka..",
            "io.trellara.sink.engine..",
            "io.trellara.sink.buffer..",
            "io.trellara.sink.connect..")
        .check(classes);
  }

  @Test
  void thePostgresPackagesByRoleNeverReachUpToTheApplier() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.trellara.sink.postgres.session..",
            "io.trellara.sink.postgres.settings..",
            "io.trellara.sink.postgres.checkpoint..",
            "io.trellara.sink.postgres.schema..",
            "io.trellara.sink.postgres.ddl..",
            "io.trellara.sink.postgres.snapshot..",
            "io.trellara.sink.postgres.apply..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.trellara.sink.postgres")
        .check(classes);
  }

  @Test
  void onlyTheConnectAdaptersKnowKafkaConnect() {
    noClasses()
        .that()
        .resideInAnyPackage("io.trellara.source..", "io.trellara.sink..")
        .and()
        .resideOutsideOfPackages("io.trellara.source.connect..", "io.trellara.sink.connect..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.kafka.connect..")
        .check(classes);
  }

  @Test
  void nothingImportsTheConnectAdapters() {
    noClasses()
        .that()
        .resideInAPackage("io.trellara.source..")
        .and()
        .resideOutsideOfPackage("io.trellara.source.connect..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.trellara.source.connect..")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("io.trellara.sink..")
        .and()
        .resideOutsideOfPackage("io.trellara.sink.connect..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.trellara.sink.connect..")
        .check(classes);
  }

  @Test
  void theSourcesCaptureAndParserArePure() {
    noClasses()
        .that()
        .resideInAnyPackage("io.trellara.source.capture..", "io.trellara.source.pgoutput..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.sql..", "org.postgresql..", "org.apache.kafka..")
        .check(classes);
  }

  @Test
  void noPackagesDependOnEachOtherInACircle() {
    slices().matching("io.trellara.sink.(*)..").should().beFreeOfCycles().check(classes);
    slices().matching("io.trellara.sink.postgres.(*)..").should().beFreeOfCycles().check(classes);
    slices().matching("io.trellara.source.(*)..").should().beFreeOfCycles().check(classes);
    slices().matching("io.trellara.protocol.(*)..").should().beFreeOfCycles().check(classes);
  }

  // ---- sizes, from the sources of every module -------------------------------------------------

  private static List<Path> mainSources() throws IOException {
    try (Stream<Path> modules = Files.list(ROOT)) {
      List<Path> out = new ArrayList<>();
      for (Path module : modules.toList()) {
        Path main = module.resolve("src/main/java");
        if (Files.isDirectory(main)) {
          try (Stream<Path> s = Files.walk(main)) {
            s.filter(p -> p.toString().endsWith(".java")).forEach(out::add);
          }
        }
      }
      return out;
    }
  }

  private static String packageDir(Path file) {
    String path = ROOT.relativize(file.getParent()).toString().replace('\\', '/');
    return path.substring(path.indexOf("src/main/java/") + "src/main/java/".length());
  }

  @Test
  void noMainClassIsOver400Lines() throws IOException {
    List<String> over = new ArrayList<>();
    for (Path f : mainSources()) {
      int lines = Files.readAllLines(f).size();
      if (lines > 400) {
        over.add(ROOT.relativize(f) + " (" + lines + " lines)");
      }
    }
    assertThat(over).as("main classes over 400 lines").isEmpty();
  }

  @Test
  void noPackageHoldsMoreThan20Files() throws IOException {
    Map<String, Long> files =
        mainSources().stream()
            .collect(
                Collectors.groupingBy(
                    ArchitectureRulesTest::packageDir, TreeMap::new, Collectors.counting()));
    assertThat(
            files.entrySet().stream()
                .filter(e -> e.getValue() > 20 && !MANY_FILES_BY_DESIGN.contains(e.getKey()))
                .toList())
        .as("packages over 20 files")
        .isEmpty();
  }

  @Test
  void theConnectTasksAreThinAdapters() throws IOException {
    for (String task :
        List.of(
            "connect-sink/src/main/java/io/trellara/sink/connect/TrellaraSinkTask.java",
            "connect-source/src/main/java/io/trellara/source/connect/TrellaraSourceTask.java")) {
      assertThat(Files.readAllLines(ROOT.resolve(task)).size()).as(task).isLessThanOrEqualTo(170);
    }
  }
}
