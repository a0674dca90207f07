package dev.inboxoutbox.relay;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Why a relay run failed, in one line for its status, health and log: what failed, and the root
 * cause beneath it. "What failed" is the outermost relay reason in the cause chain (it names the
 * step, such as marking rows published), else the outermost exception with a message of its own;
 * wrappers whose message only repeats their cause are skipped. The root cause is the innermost
 * exception (a broken pipe, a terminated session).
 *
 * <p>Debezium's and Kafka's messages can quote the engine configuration: the password and any
 * {@code password=}, {@code secret=} or {@code jaas.config=} value are masked.
 */
final class FailureReason {

  private static final int MAX_PART = 300;
  private static final String MASK = "****";
  private static final Pattern SECRET_SETTING =
      Pattern.compile(
          "(?i)([\\w.-]*(?:password|secret|jaas\\.config)[\\w.-]*\\s*[=:]\\s*)[^,;}\\s]+");

  /** PostgreSQL's messages can span lines ("Position: 8"); a reason stays on one. */
  private static final Pattern LINE_BREAK = Pattern.compile("\\s*\\R\\s*");

  private FailureReason() {}

  static String of(Throwable failure, String password) {
    List<Throwable> chain = causeChain(failure);
    Throwable what = outermostReason(chain);
    Throwable root = chain.get(chain.size() - 1);
    String reason = describe(what, password);
    return what == root ? reason : reason + "; root cause: " + describe(root, password);
  }

  private static List<Throwable> causeChain(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private static Throwable outermostReason(List<Throwable> chain) {
    for (Throwable t : chain) {
      if (t instanceof RelayException) {
        return t;
      }
    }
    for (Throwable t : chain) {
      if (!isWrapper(t)) {
        return t;
      }
    }
    return chain.get(0);
  }

  /** {@code new SomeException(cause)} takes {@code cause.toString()} as its message. */
  private static boolean isWrapper(Throwable t) {
    String message = t.getMessage();
    return message == null
        || message.isBlank()
        || (t.getCause() != null && message.equals(t.getCause().toString()));
  }

  private static String describe(Throwable t, String password) {
    String text = t.getClass().getSimpleName() + ": " + t.getMessage();
    text = LINE_BREAK.matcher(text).replaceAll(" ");
    if (password != null && !password.isEmpty()) {
      text = text.replace(password, MASK);
    }
    text = SECRET_SETTING.matcher(text).replaceAll("$1" + MASK);
    return text.length() > MAX_PART ? text.substring(0, MAX_PART) + "..." : text;
  }
}
