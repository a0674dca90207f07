package dev.inboxoutbox.cli;

import java.time.Duration;
import picocli.CommandLine;

/** Reads 500ms, 2s, 3m, 7d. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    String v = value.trim().toLowerCase();
    CommandLine.TypeConversionException invalid =
        new CommandLine.TypeConversionException(
            "not a duration: '" + value + "' (use 500ms, 2s, 3m, 1h, 7d)");
    if (v.isEmpty()) {
      throw invalid;
    }
    try {
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      long amount = Long.parseLong(v.substring(0, Math.max(0, v.length() - 1)));
      switch (v.charAt(v.length() - 1)) {
        case 's':
          return Duration.ofSeconds(amount);
        case 'm':
          return Duration.ofMinutes(amount);
        case 'h':
          return Duration.ofHours(amount);
        case 'd':
          return Duration.ofDays(amount);
        default:
          throw invalid;
      }
    } catch (NumberFormatException | ArithmeticException e) {
      throw invalid;
    }
  }
}
