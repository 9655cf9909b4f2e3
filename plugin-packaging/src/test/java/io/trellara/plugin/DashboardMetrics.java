package io.trellara.plugin;

import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What docker/monitoring/ promises: the Trellara metric names the Grafana dashboard's queries use,
 * and what the Prometheus JMX exporter, with the shipped rules, actually exposes from this JVM's
 * beans (the collector the exporter's agent runs).
 */
final class DashboardMetrics {
  private static final Pattern METRIC =
      Pattern.compile("trellara_(source|sink)_[A-Za-z0-9]+(?:_total)?");

  private DashboardMetrics() {}

  static Path monitoring() {
    return Path.of(System.getProperty("trellara.repo.root", ".."), "docker", "monitoring")
        .toAbsolutePath()
        .normalize();
  }

  /** Every {@code trellara_*} metric name the dashboard's queries name, as exposed. */
  static Set<String> dashboardNames() throws IOException {
    String json =
        Files.readString(monitoring().resolve("grafana-dashboard.json"), StandardCharsets.UTF_8);
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(json);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  /**
   * The names the exporter exposes (a counter with its {@code _total}) for beans of {@code
   * connector}, scraped now with the shipped rules.
   */
  static Set<String> scrape(String connector) throws Exception {
    String rules =
        Files.readString(monitoring().resolve("jmx-exporter.yml"), StandardCharsets.UTF_8);
    Set<String> names = new TreeSet<>();
    for (MetricSnapshot s : new JmxCollector(rules).register(new PrometheusRegistry()).collect()) {
      String name =
          s.getMetadata().getPrometheusName() + (s instanceof CounterSnapshot ? "_total" : "");
      for (DataPointSnapshot p : s.getDataPoints()) {
        if (connector.equals(p.getLabels().get("connector"))) {
          names.add(name);
        }
      }
    }
    return names;
  }
}
