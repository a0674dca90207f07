package dev.inboxoutbox.test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one scenario found: each key's effects and anything else that broke the guarantee. */
final class ScenarioReport {

  private final String scenario;
  private final String description;
  private final Map<String, Long> effects = new LinkedHashMap<>();
  private final List<String> problems = new ArrayList<>();
  private String timeout;
  private long suspensions;
  private String notExercised;

  ScenarioReport(String scenario, String description) {
    this.scenario = scenario;
    this.description = description;
  }

  String scenario() {
    return scenario;
  }

  void effects(String key, long count) {
    effects.put(key, count);
  }

  Map<String, Long> effects() {
    return Map.copyOf(effects);
  }

  void problem(String problem) {
    problems.add(problem);
  }

  /**
   * The handler suspended the batch transaction {@code count} times during the scenario: what it
   * wrote there committed on its own, whatever each key's count says.
   */
  void suspensions(long count) {
    suspensions = count;
  }

  /**
   * The scenario ran without producing what it is named for (a race nobody ran): whatever the
   * counts say, it proved nothing, so it fails.
   */
  void notExercised(String why) {
    notExercised = why;
  }

  void timeout(String what) {
    if (timeout == null) {
      timeout = what;
    }
  }

  boolean timedOut() {
    return timeout != null;
  }

  /** Keys without exactly one effect, the scenario's other problems, or a wait that ran out. */
  boolean exactlyOnce() {
    return timeout == null
        && suspensions == 0
        && notExercised == null
        && problems.isEmpty()
        && effects.values().stream().allMatch(count -> count == 1);
  }

  String describe() {
    StringBuilder text = new StringBuilder();
    long wrong = effects.values().stream().filter(count -> count != 1).count();
    text.append("scenario '").append(scenario).append("' (").append(description).append("): ");
    if (timeout != null) {
      text.append("did not finish: ").append(timeout);
      return text.toString();
    }
    List<String> headline = new ArrayList<>();
    if (notExercised != null) {
      headline.add("not exercised: " + notExercised);
    }
    if (wrong > 0 || (suspensions == 0 && problems.isEmpty() && notExercised == null)) {
      headline.add(wrong + " of " + effects.size() + " keys without exactly one effect");
    }
    if (suspensions > 0) {
      headline.add("the handler suspended the batch transaction " + suspensions + " time(s)");
    }
    if (wrong == 0 && suspensions == 0 && notExercised == null && !problems.isEmpty()) {
      headline.add(problems.size() + " problem(s) besides the effect counts");
    }
    text.append(String.join("; ", headline));
    effects.forEach(
        (key, count) -> {
          if (count != 1) {
            text.append("\n  key ")
                .append(key)
                .append(": ")
                .append(count)
                .append(count == 1 ? " effect" : " effects")
                .append(" (expected exactly 1)");
          }
        });
    if (suspensions > 0) {
      text.append(
          "\n  the handler suspended the batch transaction (REQUIRES_NEW or NOT_SUPPORTED, the"
              + " consumer's transactionSuspensions counter): what it wrote there commits on its"
              + " own, outside the exactly-once guarantee");
    }
    problems.forEach(problem -> text.append("\n  ").append(problem));
    return text.toString();
  }

  @Override
  public String toString() {
    return describe();
  }
}
