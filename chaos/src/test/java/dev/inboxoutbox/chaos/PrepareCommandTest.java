package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@code iox prepare}: the brokers' training failing costs the services none of theirs. */
class PrepareCommandTest {

  private static final Path BROKER_LOGS = Path.of("iox-reports/prepare-kafka");

  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);

  @Test
  void theServicesAreTrainedWhenTheBrokersTrainingFails() throws Exception {
    AtomicBoolean servicesTrained = new AtomicBoolean();

    int exit =
        PrepareCommand.prepare(
            () -> {
              throw new IOException("the training run for the broker did not get ready");
            },
            BROKER_LOGS,
            () -> {
              servicesTrained.set(true);
              return true;
            },
            out);

    assertThat(servicesTrained).isTrue();
    assertThat(exit).isEqualTo(1);
    assertThat(output.toString(StandardCharsets.UTF_8))
        .contains("Kafka brokers: no class-data archive (the training run for the broker")
        .contains(BROKER_LOGS.toString());
  }

  @Test
  void bothTrainedExitsZero() throws Exception {
    assertThat(PrepareCommand.prepare(() -> true, BROKER_LOGS, () -> true, out)).isZero();
    assertThat(PrepareCommand.prepare(() -> true, BROKER_LOGS, () -> false, out)).isEqualTo(1);
    assertThat(PrepareCommand.prepare(() -> false, BROKER_LOGS, () -> true, out)).isEqualTo(1);
    assertThat(output.toString(StandardCharsets.UTF_8))
        .contains("Kafka brokers: no class-data archive (iox.jar could not be extracted)");
  }
}
