package dev.inboxoutbox.chaos.extension;

import java.nio.file.Path;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code iox.chaos.*}, passed by {@code iox chaos} to the services it launches.
 *
 * @param crashPoints probability per crash point that the JVM halts there, e.g. {@code
 *     iox.chaos.crash-points.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT=0.002}; none by default
 * @param armingFile if set, crash points fire only while this file exists: the harness removes it
 *     when its kill phase is over, so that nothing halts while the run drains
 * @param dedupOff the negative control: every delivery gets a key of its own, so repeats apply
 *     again
 */
@ConfigurationProperties("iox.chaos")
public record ChaosExtensionProperties(
    Map<CrashPoint, Double> crashPoints, Path armingFile, boolean dedupOff) {

  public ChaosExtensionProperties {
    crashPoints = crashPoints == null ? Map.of() : Map.copyOf(crashPoints);
  }
}
