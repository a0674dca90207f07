package dev.inboxoutbox.chaos.verify;

import java.util.List;

/**
 * A run's outcome. Any invariant violated fails it, whatever else happened; with every invariant
 * held, a claimed proof floor missed leaves it inconclusive: the run did not do enough to prove
 * exactly-once effects under the faults it promised. Only then does it pass.
 */
public enum Verdict {
  PASS(0, "PASS (exactly-once effects held, every claimed floor met)"),
  FAIL(1, "FAIL"),
  INCONCLUSIVE(3, "INCONCLUSIVE (every invariant held, but a claimed floor was missed)");

  private final int exitCode;
  private final String description;

  Verdict(int exitCode, String description) {
    this.exitCode = exitCode;
    this.description = description;
  }

  /** The process exit code of {@code iox chaos}: 0, 1 or 3 (2 is invalid options). */
  public int exitCode() {
    return exitCode;
  }

  public String description() {
    return description;
  }

  public static Verdict of(List<Invariant> invariants, List<ProofFloors.Result> floors) {
    if (!invariants.stream().allMatch(Invariant::passed)) {
      return FAIL;
    }
    return floors.stream().allMatch(ProofFloors.Result::met) ? PASS : INCONCLUSIVE;
  }
}
