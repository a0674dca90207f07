package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.DevStackSettings.PostgresMode;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {

  private static final DevStackSettings EMBEDDED =
      new DevStackSettings(
          PostgresMode.EMBEDDED,
          Optional.empty(),
          "postgres",
          "",
          0,
          Optional.empty(),
          Optional.empty(),
          0,
          Path.of("target", "dev-stack"));

  private static final DevStackSettings EXTERNAL =
      new DevStackSettings(
          PostgresMode.EXTERNAL,
          Optional.of("jdbc:postgresql://db.example:5432/postgres"),
          "postgres",
          "",
          0,
          Optional.empty(),
          Optional.empty(),
          0,
          Path.of("target", "dev-stack"));

  @Test
  void theEmbeddedServerIsSizedForTheFilledInboxUnlessToldOtherwise() {
    assertThat(command().stackSettings(() -> EMBEDDED).postgresSharedBuffers()).contains("2GB");
    assertThat(
            command()
                .stackSettings(() -> EMBEDDED.withPostgresSharedBuffers("1GB"))
                .postgresSharedBuffers())
        .contains("1GB");
    assertThat(
            command("--shared-buffers", "512MB")
                .stackSettings(() -> EMBEDDED.withPostgresSharedBuffers("1GB"))
                .postgresSharedBuffers())
        .contains("512MB");
  }

  @Test
  void aServerOfTheUsersOwnKeepsItsSettings() {
    assertThat(command().stackSettings(() -> EXTERNAL).postgresSharedBuffers()).isEmpty();
    assertThatThrownBy(() -> command("--shared-buffers", "1GB").stackSettings(() -> EXTERNAL))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--shared-buffers sizes the embedded server")
        .hasMessageContaining("with iox.postgres=external it does not apply");
  }

  @Test
  void aSizePostgresCannotReadIsRefusedUnderTheOptionsName() {
    assertThatThrownBy(() -> command("--shared-buffers", "lots").stackSettings(() -> EMBEDDED))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--shared-buffers must be a size PostgreSQL reads")
        .hasMessageContaining("'lots'");
  }

  private static BenchCommand command(String... args) {
    BenchCommand command = new BenchCommand();
    new CommandLine(command).parseArgs(args);
    return command;
  }
}
