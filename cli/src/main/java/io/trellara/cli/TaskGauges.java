package io.trellara.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The Trellara task beans of the workers {@code trellara status --jmx} names ({@code
 * io.trellara:type=source-task|sink-task,connector=NAME,task=N}): per stage the seconds since it
 * last made progress and what it waits for (the watchdog's view: past the stall bound the task
 * fails as STALLED), and the sink's barrier gauges.
 */
final class TaskGauges implements AutoCloseable {
  private final List<JMXConnector> connectors = new ArrayList<>();
  private final List<MBeanServerConnection> servers = new ArrayList<>();

  /** {@code endpoints}: {@code host:port} of a worker's JMX port, or a full JMX service URL. */
  TaskGauges(List<String> endpoints) throws IOException {
    for (String e : endpoints) {
      JMXServiceURL url =
          new JMXServiceURL(
              e.startsWith("service:") ? e : "service:jmx:rmi:///jndi/rmi://" + e + "/jmxrmi");
      JMXConnector c = JMXConnectorFactory.connect(url);
      connectors.add(c);
      servers.add(c.getMBeanServerConnection());
    }
  }

  /** Per task id of {@code connector}: its attributes by name (empty when no worker has it). */
  Map<String, Map<String, Object>> tasks(String connector) throws IOException {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    for (MBeanServerConnection s : servers) {
      Set<ObjectName> names;
      try {
        names =
            s.queryNames(new ObjectName("io.trellara:connector=" + quoted(connector) + ",*"), null);
      } catch (javax.management.MalformedObjectNameException e) {
        throw new IllegalArgumentException("connector name " + connector, e);
      }
      for (ObjectName n : names) {
        Map<String, Object> attributes = new TreeMap<>();
        try {
          for (MBeanAttributeInfo a : s.getMBeanInfo(n).getAttributes()) {
            attributes.put(a.getName(), s.getAttribute(n, a.getName()));
          }
        } catch (javax.management.JMException e) {
          continue; // a task that stopped between the query and the read
        }
        out.put(n.getKeyProperty("task"), attributes);
      }
    }
    return out;
  }

  /**
   * The stages of one task, in words: {@code producer 0 s; replication stream 3 s (waiting ...)}.
   */
  static String stages(Map<String, Object> attributes) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, Object> a : attributes.entrySet()) {
      String name = a.getKey();
      if (!name.endsWith("SecondsSinceProgress")) {
        continue;
      }
      String stage = name.substring(0, name.length() - "SecondsSinceProgress".length());
      Object waiting = attributes.get(stage + "WaitingFor");
      b.append(b.length() == 0 ? "" : "  ")
          .append(words(stage))
          .append('=')
          .append(a.getValue())
          .append("s");
      if (waiting != null && !waiting.toString().isEmpty()) {
        b.append(" (waiting for ").append(waiting).append(')');
      }
    }
    return b.toString();
  }

  /** {@code ReplicationStream} as {@code replication_stream}. */
  static String words(String camel) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < camel.length(); i++) {
      char c = camel.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        b.append('_');
      }
      b.append(Character.toLowerCase(c));
    }
    return b.toString();
  }

  private static String quoted(String v) {
    for (int i = 0; i < v.length(); i++) {
      if (",=:\"*?\n".indexOf(v.charAt(i)) >= 0) {
        return ObjectName.quote(v);
      }
    }
    return v;
  }

  @Override
  public void close() {
    for (JMXConnector c : connectors) {
      try {
        c.close();
      } catch (IOException ignored) {
        // the worker went away: nothing to close
      }
    }
  }
}
