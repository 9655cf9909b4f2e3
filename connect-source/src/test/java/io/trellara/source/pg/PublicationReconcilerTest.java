package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the start changes in an auto-created publication, from the include list. */
class PublicationReconcilerTest {

  private static List<String> names(List<String[]> tables) {
    return tables.stream().map(t -> t[0] + "." + t[1]).toList();
  }

  @Test
  void addsWhatTheListGainedAndDropsWhatItLost() {
    PublicationReconciler.Plan plan =
        PublicationReconciler.plan(
            List.of("public.account", "public.fresh", "sales.Orders"),
            List.of(new String[] {"public", "account"}, new String[] {"public", "gone"}));
    assertThat(names(plan.added())).containsExactly("public.fresh", "sales.Orders");
    assertThat(names(plan.removed())).containsExactly("public.gone");
    assertThat(plan.empty()).isFalse();
    assertThat(plan.describe())
        .isEqualTo("added [public.fresh, sales.Orders], removed [public.gone]");
  }

  @Test
  void aTableWithoutSchemaIsInPublicAndNamesAreCaseSensitive() {
    PublicationReconciler.Plan plan =
        PublicationReconciler.plan(
            List.of("account", "public.Account", "account"),
            List.<String[]>of(new String[] {"public", "account"}));
    assertThat(names(plan.added())).containsExactly("public.Account");
    assertThat(plan.removed()).isEmpty();
  }

  @Test
  void nothingChangesWhenTheyAgree() {
    assertThat(
            PublicationReconciler.plan(
                    List.of("public.a", "public.b"),
                    List.of(new String[] {"public", "b"}, new String[] {"public", "a"}))
                .empty())
        .isTrue();
  }

  @Test
  void theMessageQuotesEachTable() {
    assertThat(
            PublicationReconciler.message(
                "id-1", List.of(new String[] {"public", "fresh"}, new String[] {"s", "we\"ird"})))
        .isEqualTo("added-tables id-1\n\"public\".\"fresh\"\n\"s\".\"we\"\"ird\"");
  }

  @Test
  void onlyTablesOfTheRecordedListAreDroppedAndNoneWithoutARecord() {
    List<String[]> published =
        List.of(
            new String[] {"public", "a"},
            new String[] {"public", "b"},
            new String[] {"public", "heartbeat"});
    List<String[]> recorded = List.of(new String[] {"public", "a"}, new String[] {"public", "b"});
    PublicationReconciler.Plan plan =
        PublicationReconciler.plan(List.of("public.a"), published, recorded);
    assertThat(names(plan.removed()))
        .as("b left the list; the heartbeat table was added by hand and stays")
        .containsExactly("public.b");
    assertThat(PublicationReconciler.plan(List.of("public.a"), published, null).empty())
        .as("no record (a publication of an older version, or made by hand): nothing dropped")
        .isTrue();
  }

  @Test
  void theRecordRoundTripsAnyNameAndAnythingElseIsNoRecord() {
    String record =
        PublicationReconciler.PublicationRecord.format(
            PublicationReconciler.COMMENT_MARK, List.of("public.a", "a", "S.we\"ird.x"));
    assertThat(record)
        .isEqualTo(
            PublicationReconciler.COMMENT_MARK + "\n\"public\".\"a\"\n\"S\".\"we\"\"ird.x\"");
    assertThat(names(PublicationReconciler.PublicationRecord.parse(record)))
        .containsExactly("public.a", "S.we\"ird.x");
    assertThat(PublicationReconciler.PublicationRecord.parse(null)).isNull();
    assertThat(PublicationReconciler.PublicationRecord.parse("the orders feed")).isNull();
    assertThat(
            PublicationReconciler.PublicationRecord.parse(
                PublicationReconciler.COMMENT_MARK + "\n\"public\".a"))
        .as("a line that is not two quoted names: no record")
        .isNull();
    assertThat(PublicationReconciler.PublicationRecord.literal("it's a \\ b"))
        .isEqualTo("E'it''s a \\\\ b'");
  }
}
