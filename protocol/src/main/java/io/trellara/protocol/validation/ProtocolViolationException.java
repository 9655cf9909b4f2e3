package io.trellara.protocol.validation;

import io.trellara.protocol.LogText;

/**
 * A wire-contract violation: names the rule, the offending field and the event key (or the
 * transaction identity when no single event is at fault). Never recoverable by skipping: the
 * message is rejected whole.
 */
public class ProtocolViolationException extends RuntimeException {
  private final ProtocolRule rule;
  private final String field;
  private final String eventKey;

  public ProtocolViolationException(
      ProtocolRule rule, String field, String eventKey, String detail) {
    this(rule, field, eventKey, detail, null);
  }

  public ProtocolViolationException(
      ProtocolRule rule, String field, String eventKey, String detail, Throwable cause) {
    // the field names, key and detail quote the wire's strings: escaped, so the message is one line
    super(
        rule.name()
            + " at "
            + LogText.escape(field)
            + " ["
            + (eventKey == null || eventKey.isEmpty() ? "?" : LogText.escape(eventKey))
            + "]: "
            + LogText.escape(detail)
            + " (rule: "
            + rule.description()
            + ")",
        cause);
    this.rule = rule;
    this.field = field;
    this.eventKey = eventKey;
  }

  public ProtocolRule rule() {
    return rule;
  }

  public String field() {
    return field;
  }

  public String eventKey() {
    return eventKey;
  }
}
