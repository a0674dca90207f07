package dev.inboxoutbox.chaos;

/** One verifier check: what it holds the system to, what it counted, how many violations. */
record Invariant(String name, boolean passed, long checked, long violations, String detail) {

  static Invariant of(String name, long checked, long violations, String detail) {
    return new Invariant(name, violations == 0, checked, violations, detail);
  }
}
