package dev.inboxoutbox.chaos.verify;

/** One verifier check: what it holds the system to, what it counted, how many violations. */
public record Invariant(String name, boolean passed, long checked, long violations, String detail) {

  public static Invariant of(String name, long checked, long violations, String detail) {
    return new Invariant(name, violations == 0, checked, violations, detail);
  }
}
