package io.trellara.testplatform;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * GET /connectors/{name}/status, typed.
 *
 * @param state connector state: UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED, RESTARTING
 * @param trace the connector's stack trace when FAILED, else null
 */
public record ConnectorStatus(
    String name, String state, String workerId, String trace, List<TaskStatus> tasks) {

  /** One task's state; trace when FAILED, else null. */
  public record TaskStatus(int id, String state, String workerId, String trace) {}

  static ConnectorStatus fromJson(JsonNode json) {
    JsonNode connector = json.path("connector");
    List<TaskStatus> tasks = new ArrayList<>();
    for (JsonNode task : json.path("tasks")) {
      tasks.add(
          new TaskStatus(
              task.path("id").asInt(),
              task.path("state").asText(),
              task.path("worker_id").asText(null),
              textOrNull(task.path("trace"))));
    }
    return new ConnectorStatus(
        json.path("name").asText(),
        connector.path("state").asText(),
        connector.path("worker_id").asText(null),
        textOrNull(connector.path("trace")),
        List.copyOf(tasks));
  }

  private static String textOrNull(JsonNode node) {
    return node.isMissingNode() || node.isNull() ? null : node.asText();
  }

  /** Connector RUNNING with at least {@code minTasks} tasks, all RUNNING. */
  public boolean isRunning(int minTasks) {
    return "RUNNING".equals(state)
        && tasks.size() >= minTasks
        && tasks.stream().allMatch(t -> "RUNNING".equals(t.state()));
  }

  /** The connector or any task FAILED. */
  public boolean isFailed() {
    return "FAILED".equals(state) || tasks.stream().anyMatch(t -> "FAILED".equals(t.state()));
  }

  /** The connector's trace, else the first failed task's trace, else null. */
  public String firstTrace() {
    if (trace != null) {
      return trace;
    }
    return tasks.stream().map(TaskStatus::trace).filter(t -> t != null).findFirst().orElse(null);
  }
}
