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
    text.append(wrong)
        .append(" of ")
        .append(effects.size())
        .append(" keys without exactly one effect");
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
    problems.forEach(problem -> text.append("\n  ").append(problem));
    return text.toString();
  }

  @Override
  public String toString() {
    return describe();
  }
}
