package io.trellara.plugin.crash;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The Trellara task MBeans of a worker JVM, read over remote JMX (the worker is started with {@link
 * #jvmArgs}); connects lazily and again after the worker restarted. Every read answers null while
 * the worker or its task is not there.
 */
final class JmxProbe implements AutoCloseable {
  private final int port;
  private final Map<String, ObjectName> cached = new java.util.HashMap<>();
  private JMXConnector connector;

  JmxProbe(int port) {
    this.port = port;
  }

  static List<String> jvmArgs(int port) {
    return List.of(
        "-Dcom.sun.management.jmxremote.port=" + port,
        "-Dcom.sun.management.jmxremote.rmi.port=" + port,
        "-Dcom.sun.management.jmxremote.host=127.0.0.1",
        "-Djava.rmi.server.hostname=127.0.0.1",
        "-Dcom.sun.management.jmxremote.authenticate=false",
        "-Dcom.sun.management.jmxremote.ssl=false");
  }

  /** An attribute of the first task bean of {@code type} (source-task, sink-task), or null. */
  synchronized Object attribute(String type, String attribute) {
    return read(type, attribute).get(attribute);
  }

  /** Attributes of the first task bean of {@code type} in one call; empty when not there. */
  synchronized Map<String, Object> read(String type, String... attributes) {
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      MBeanServerConnection c = connection();
      ObjectName name = cached.get(type);
      if (name == null || !c.isRegistered(name)) {
        name = null;
        for (ObjectName n : c.queryNames(new ObjectName("io.trellara:type=" + type + ",*"), null)) {
          name = n;
          break;
        }
        if (name == null) {
          return out;
        }
        cached.put(type, name);
      }
      for (Object a : c.getAttributes(name, attributes)) {
        javax.management.Attribute attribute = (javax.management.Attribute) a;
        out.put(attribute.getName(), attribute.getValue());
      }
      return out;
    } catch (Exception e) {
      disconnect();
      return out;
    }
  }

  /** Every attribute of every task bean of {@code type}, for diagnostics. */
  synchronized Map<String, Object> attributes(String type, List<String> attributes) {
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      MBeanServerConnection c = connection();
      for (ObjectName name :
          c.queryNames(new ObjectName("io.trellara:type=" + type + ",*"), null)) {
        for (String a : attributes) {
          try {
            out.put(name.getKeyProperty("task") + "." + a, c.getAttribute(name, a));
          } catch (Exception e) {
            out.put(name.getKeyProperty("task") + "." + a, "? " + e.getClass().getSimpleName());
          }
        }
      }
    } catch (Exception e) {
      disconnect();
      out.put("jmx", "unreachable: " + e);
    }
    return out;
  }

  private MBeanServerConnection connection() throws IOException {
    if (connector == null) {
      JMXServiceURL url =
          new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
      connector = JMXConnectorFactory.connect(url, Map.of());
    }
    return connector.getMBeanServerConnection();
  }

  synchronized void disconnect() {
    if (connector != null) {
      try {
        connector.close();
      } catch (IOException e) {
        // the worker is gone
      }
      connector = null;
    }
    cached.clear();
  }

  @Override
  public void close() {
    disconnect();
  }
}
