package io.trellara.connect.common;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers task MXBeans on the platform MBeanServer under {@code
 * io.trellara:type=<type>,connector=<name>, task=<id>}. Connect's own metrics registry is internal
 * to the worker (not part of the public plugin API), so the tasks publish plain JMX beans next to
 * the worker's {@code kafka.connect} beans instead.
 *
 * <p>A restarted task may start before its predecessor has stopped: registering replaces an
 * existing bean of the same name, and unregistering only removes the bean if it is still the
 * caller's.
 */
public final class TaskMBeans {
  public static final String DOMAIN = "io.trellara";
  private static final Map<ObjectName, Object> OWNERS = new ConcurrentHashMap<>();

  private TaskMBeans() {}

  public static ObjectName name(String type, String connector, String task) {
    try {
      return new ObjectName(
          DOMAIN + ":type=" + type + ",connector=" + value(connector) + ",task=" + value(task));
    } catch (JMException e) {
      throw new IllegalArgumentException("cannot build a JMX name for connector " + connector, e);
    }
  }

  /** Quotes a key property value only when it holds a character JMX reserves. */
  public static String value(String v) {
    for (int i = 0; i < v.length(); i++) {
      if (",=:\"*?\n".indexOf(v.charAt(i)) >= 0) {
        return ObjectName.quote(v);
      }
    }
    return v;
  }

  public static synchronized void register(ObjectName name, Object bean) throws JMException {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    if (server.isRegistered(name)) {
      server.unregisterMBean(name);
    }
    server.registerMBean(bean, name);
    OWNERS.put(name, bean);
  }

  public static synchronized void unregister(ObjectName name, Object bean) throws JMException {
    if (OWNERS.remove(name, bean)) {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      if (server.isRegistered(name)) {
        server.unregisterMBean(name);
      }
    }
  }

  /** The one daemon thread that refreshes a task bean's gauges, named after the bean. */
  public static java.util.concurrent.ScheduledExecutorService ticker(ObjectName name) {
    return java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t =
              new Thread(
                  r,
                  "trellara-metrics-"
                      + name.getKeyProperty("connector")
                      + "-"
                      + name.getKeyProperty("task"));
          t.setDaemon(true);
          return t;
        });
  }
}
