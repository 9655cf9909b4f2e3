package io.trellara.protocol.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.validation.Misreading;
import io.trellara.protocol.validation.ProtocolRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The kit discriminates: the reference validator switched to each deliberate misreading of
 * docs/protocol.md ({@link Misreading}) fails at least one vector, by its verdict, its rule set or
 * its first rule. A misreading no vector catches is a reading the kit cannot tell apart: the build
 * fails until a vector does.
 */
class MisreadingsTest {
  private static final List<Vector> VECTORS = ConformanceVectors.all();

  @AfterEach
  void switchOff() {
    Misreading.only(null);
  }

  @TestFactory
  Stream<DynamicTest> everyMisreadingFailsAtLeastOneVector() {
    return Stream.of(Misreading.values())
        .map(
            m ->
                DynamicTest.dynamicTest(
                    m.name(),
                    () -> {
                      List<String> caught = catching(m);
                      assertThat(caught).as(m.name() + ": " + m.reading()).isNotEmpty();
                      System.out.println(
                          "misreading " + m.name() + " caught by " + caught.size() + ": " + caught);
                    }));
  }

  @Test
  void atLeastNineteenMisreadings() {
    assertThat(Misreading.values()).hasSizeGreaterThanOrEqualTo(19);
  }

  /** The vectors the validator, misreading {@code m}, fails. */
  static List<String> catching(Misreading m) {
    List<String> caught = new ArrayList<>();
    try {
      Misreading.only(m);
      for (Vector v : VECTORS) {
        Set<ProtocolRule> rules = VectorJudge.rulesBroken(v);
        ProtocolRule first = VectorJudge.judge(v);
        if (!rules.equals(v.rules()) || !Objects.equals(first, v.first())) {
          caught.add(v.name());
        }
      }
    } finally {
      Misreading.only(null);
    }
    return caught;
  }
}
