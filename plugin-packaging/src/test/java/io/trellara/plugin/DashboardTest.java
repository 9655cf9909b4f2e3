package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.sink.connect.metrics.SinkTaskMetricsMXBean;
import io.trellara.source.connect.metrics.SourceTaskMetricsMXBean;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * docker/monitoring/ and docs/operations.md against the task beans: every metric the Grafana
 * dashboard names is a numeric attribute of a task bean (a total named {@code _total}, exported as
 * a counter), and every attribute of both beans is documented. ConfigExamplesIT checks, on a
 * running pair, that the exporter with the shipped rules exposes each of them.
 */
class DashboardTest {
  private static final List<Class<?>> BEANS =
      List.of(SourceTaskMetricsMXBean.class, SinkTaskMetricsMXBean.class);

  @Test
  void everyDashboardMetricIsANumericAttributeOfATaskBean() throws IOException {
    Set<String> names = DashboardMetrics.dashboardNames();
    assertThat(names).hasSizeGreaterThan(20);
    String rules =
        Files.readString(
            DashboardMetrics.monitoring().resolve("jmx-exporter.yml"), StandardCharsets.UTF_8);
    int from = rules.indexOf("(TransactionsCaptured|") + 1;
    Set<String> counters =
        Set.of(rules.substring(from, rules.indexOf(")(?::.*)?$'", from)).split("\\|"));
    for (String name : names) {
      boolean total = name.endsWith("_total");
      String bare = total ? name.substring(0, name.length() - "_total".length()) : name;
      Class<?> bean =
          bare.startsWith("trellara_source_")
              ? SourceTaskMetricsMXBean.class
              : SinkTaskMetricsMXBean.class;
      String attribute = bare.substring(bare.indexOf('_', "trellara_".length()) + 1);
      Method getter = getter(bean, attribute);
      assertThat(getter)
          .as("%s: %s has an attribute %s", name, bean.getSimpleName(), attribute)
          .isNotNull();
      assertThat(getter.getReturnType().isPrimitive()).as("%s is numeric", name).isTrue();
      assertThat(counters.contains(attribute))
          .as("%s: exported as a counter exactly when the dashboard reads it as one (_total)", name)
          .isEqualTo(total);
    }
  }

  @Test
  void everyAttributeOfBothTaskBeansIsDocumented() throws IOException {
    String ops =
        Files.readString(
            Path.of(System.getProperty("trellara.repo.root", ".."), "docs", "operations.md"),
            StandardCharsets.UTF_8);
    List<String> missing = new ArrayList<>();
    for (Class<?> bean : BEANS) {
      for (Method m : bean.getMethods()) {
        if (m.getName().startsWith("get") && m.getParameterCount() == 0) {
          String attribute = m.getName().substring(3);
          if (!ops.contains("`" + attribute + "`")) {
            missing.add(bean.getSimpleName() + "." + attribute);
          }
        }
      }
    }
    assertThat(missing).as("attributes docs/operations.md does not name").isEmpty();
  }

  private static Method getter(Class<?> bean, String attribute) {
    try {
      return bean.getMethod("get" + attribute);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }
}
