package io.trellara.quickstart;

import java.util.Locale;

/**
 * One sample of the pipeline: transactions on the topic, transactions applied on the target (its
 * checkpoint table), WAL the slot has not confirmed, and the commit-to-apply latency of the last
 * applied transaction.
 */
record Progress(long captured, long applied, long walBehind, long latencyMs) {

  String line() {
    return String.format(
        Locale.ROOT,
        "captured %,d tx | applied %,d tx | behind %,d tx | slot %s behind%s",
        captured,
        applied,
        Math.max(0, captured - applied),
        bytes(walBehind),
        latencyMs >= 0 ? " | last commit->applied " + latencyMs + " ms" : "");
  }

  private static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f kB", n / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MB", n / (1024.0 * 1024));
  }
}
