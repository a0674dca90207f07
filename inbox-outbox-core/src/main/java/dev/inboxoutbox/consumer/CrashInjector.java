package dev.inboxoutbox.consumer;

/** Lets a chaos run kill the process (or a test throw) at a {@link CrashPoint}. */
@FunctionalInterface
public interface CrashInjector {

  CrashInjector NONE = point -> {};

  void at(CrashPoint point);
}
