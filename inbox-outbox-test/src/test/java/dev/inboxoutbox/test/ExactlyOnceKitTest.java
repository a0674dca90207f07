package dev.inboxoutbox.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;

class ExactlyOnceKitTest {

  @Test
  void theDefaultConflictingPayloadAddsAFieldToTheJsonObject() {
    assertThat(ExactlyOnceKit.withConflictField("{\"qty\":1}"))
        .isEqualTo("{\"ioxTestConflict\":true,\"qty\":1}");
    assertThat(ExactlyOnceKit.withConflictField(" { } ")).isEqualTo("{\"ioxTestConflict\":true}");
    assertThatThrownBy(() -> ExactlyOnceKit.withConflictField("[1]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("conflictingPayload(...)");
  }

  @Test
  void aReportNamesEveryKeyWithoutExactlyOneEffect() {
    ScenarioReport report = new ScenarioReport("duplicate delivery", "each record sent twice");
    report.effects("k-0", 1);
    report.effects("k-1", 2);
    report.effects("k-2", 0);

    assertThat(report.exactlyOnce()).isFalse();
    assertThat(report.describe())
        .isEqualTo(
            """
            scenario 'duplicate delivery' (each record sent twice): 2 of 3 keys without exactly \
            one effect
              key k-1: 2 effects (expected exactly 1)
              key k-2: 0 effects (expected exactly 1)""");
  }

  @Test
  void aReportWithOneEffectPerKeyAndNoProblemIsExactlyOnce() {
    ScenarioReport report = new ScenarioReport("s", "d");
    report.effects("k-0", 1);
    assertThat(report.exactlyOnce()).isTrue();
    report.problem("key k-0: expected a CONFLICT dead letter on t.DLT, found none");
    assertThat(report.exactlyOnce()).isFalse();
    assertThat(report.describe())
        .endsWith("\n  key k-0: expected a CONFLICT dead letter on t.DLT, found none");
  }

  @Test
  void aSuspendedTransactionIsTheHeadlineWhenEveryKeyHasOneEffect() {
    ScenarioReport report = new ScenarioReport("duplicate delivery", "each record sent twice");
    report.effects("k-0", 1);
    report.effects("k-1", 1);
    report.suspensions(2);

    assertThat(report.exactlyOnce()).isFalse();
    assertThat(report.describe())
        .startsWith(
            "scenario 'duplicate delivery' (each record sent twice): the handler suspended the"
                + " batch transaction 2 time(s)")
        .doesNotContain("0 of 2 keys");
  }

  @Test
  void aSuspensionBesideKeysWithoutOneEffectIsInTheHeadlineToo() {
    ScenarioReport report = new ScenarioReport("s", "d");
    report.effects("k-0", 2);
    report.suspensions(1);

    assertThat(report.describe())
        .startsWith(
            "scenario 's' (d): 1 of 1 keys without exactly one effect; the handler suspended the"
                + " batch transaction 1 time(s)");
  }

  @Test
  void aScenarioNotExercisedFailsWithThatAsItsHeadline() {
    ScenarioReport report = new ScenarioReport("concurrent duplicates", "d");
    report.effects("k-0", 1);
    report.notExercised("the copies of 0 of 1 keys reached two consumers or more");

    assertThat(report.exactlyOnce()).isFalse();
    assertThat(report.describe())
        .isEqualTo(
            "scenario 'concurrent duplicates' (d): not exercised: the copies of 0 of 1 keys"
                + " reached two consumers or more");
  }

  @Test
  void aReportWhoseWaitRanOutIsNotExactlyOnce() {
    ScenarioReport report = new ScenarioReport("s", "d");
    report.timeout("waited 60 s for 3 records processed in vain");
    assertThat(report.exactlyOnce()).isFalse();
    assertThat(report.describe()).contains("did not finish: waited 60 s");
  }

  @Test
  void anApplicationWithoutTheKitsConfigurationIsToldToImportIt() {
    try (GenericApplicationContext context = new GenericApplicationContext()) {
      context.refresh();
      assertThatThrownBy(() -> ExactlyOnceKit.forApplication(context))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("@Import(ExactlyOnceTestConfiguration.class)");
    }
  }
}
