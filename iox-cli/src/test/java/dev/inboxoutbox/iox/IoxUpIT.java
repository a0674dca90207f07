package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code iox up} stopped by a SIGTERM while its services start: what had started stops as cleanly
 * as a whole stack does ({@link IoxUpTracingIT} runs and stops one).
 */
class IoxUpIT {

  @Test
  void aStopWhileStartingStopsWhatHadStartedAsCleanly() throws Exception {
    int postgres = FreePorts.belowEphemeralRange();
    int kafka = FreePorts.belowEphemeralRange();
    try (IoxProcess up =
        startUp(
            postgres,
            kafka,
            FreePorts.belowEphemeralRange(),
            FreePorts.belowEphemeralRange(),
            FreePorts.belowEphemeralRange())) {
      await("the dev stack up, the services starting")
          .atMost(Duration.ofMinutes(5))
          .until(
              () ->
                  up.output().contains("starting order-consumer and payment-consumer...")
                      || !up.isAlive());

      List<String> stopping = up.terminate(Duration.ofSeconds(90));

      assertThat(stopping).as("iox up stopped on SIGTERM").isNotNull();
      assertThat(stopping)
          .as(String.join("\n", stopping))
          .contains("stopped.")
          .noneMatch(line -> line.contains("ERROR") || line.contains("Exception"));
      assertThat(IoxProcess.listening(postgres)).as("PostgreSQL's port closed").isFalse();
      assertThat(IoxProcess.listening(kafka)).as("Kafka's port closed").isFalse();
    }
  }

  private static IoxProcess startUp(int postgres, int kafka, int orders, int payments, int provider)
      throws IOException {
    return IoxProcess.start(
        "up",
        "--postgres-port=" + postgres,
        "--kafka-port=" + kafka,
        "--order-port=" + orders,
        "--payment-port=" + payments,
        "--provider-port=" + provider,
        "--repo=" + Repository.ROOT,
        "--reports=" + Files.createTempDirectory("iox-up-reports"));
  }
}
