package io.trellara.testplatform;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class that gets its servers through {@link TestServers} (usually via {@link
 * TrellaraStack}) and so runs on either platform. Tagged {@value #TAG}: the {@code testcontainers}
 * Maven profile runs exactly these. When the selected platform cannot start here (no Docker engine)
 * the class is skipped with the reason, never failed; the condition runs before the class is
 * initialised, so a {@code static} stack field never starts.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(EitherPlatform.TAG)
@ExtendWith(EitherPlatform.Condition.class)
public @interface EitherPlatform {

  String TAG = "either-platform";

  /** Disables the class when {@link TestServers#unavailable()} says why. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      TestServers servers = TestServers.current();
      Optional<String> unavailable = servers.unavailable();
      if (unavailable.isEmpty()) {
        return ConditionEvaluationResult.enabled("servers: " + servers.name());
      }
      // Surefire keeps a disabled reason in its XML report only: say it on the console too, once
      // per class
      System.err.println(context.getDisplayName() + " skipped: " + unavailable.get());
      return ConditionEvaluationResult.disabled(unavailable.get());
    }
  }
}
