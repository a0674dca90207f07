package dev.inboxoutbox.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code iox provider} and the simulator.s executable jar run this command: it must offer every
 * setting.
 */
class ProviderCommandTest {

  /** Each builder setting and the options that set it. */
  private static final Map<String, List<String>> OPTIONS_BY_BUILDER_SETTING =
      Map.ofEntries(
          Map.entry("host", List.of("--host")),
          Map.entry("port", List.of("--port")),
          Map.entry("webhookUrl", List.of("--webhook-url")),
          Map.entry("webhookSecret", List.of("--webhook-secret")),
          Map.entry("duplicateShare", List.of("--duplicate-share")),
          Map.entry("failureShare", List.of("--failure-share")),
          Map.entry("delay", List.of("--delay-min-ms", "--delay-max-ms")),
          Map.entry("retryBackoff", List.of("--retry-min-ms", "--retry-max-ms")),
          Map.entry("seed", List.of("--seed")),
          Map.entry("webhookThreads", List.of("--webhook-threads")),
          Map.entry("requestThreads", List.of("--request-threads")));

  @Test
  void everyBuilderSettingHasAnOption() {
    Set<String> settings =
        Arrays.stream(PaymentProviderSimulator.Builder.class.getDeclaredMethods())
            .filter(method -> Modifier.isPublic(method.getModifiers()))
            .map(Method::getName)
            .filter(name -> !name.equals("build"))
            .collect(Collectors.toSet());
    assertThat(OPTIONS_BY_BUILDER_SETTING.keySet()).isEqualTo(settings);
    Set<String> options =
        providerSpec().options().stream().map(OptionSpec::longestName).collect(Collectors.toSet());
    OPTIONS_BY_BUILDER_SETTING.values().forEach(names -> assertThat(options).containsAll(names));
  }

  @Test
  void helpDescribesEveryOptionAndItsDefault() {
    String help = new CommandLine(new ProviderCommand()).getUsageMessage();
    for (OptionSpec option : providerSpec().options()) {
      if (option.usageHelp() || option.versionHelp()) {
        continue;
      }
      assertThat(help).contains(option.longestName());
      assertThat(option.description()).as(option.longestName()).isNotEmpty();
      assertThat(option.defaultValue()).as(option.longestName()).isNotNull();
      assertThat(String.join(" ", option.description()))
          .as(option.longestName())
          .contains("(default ");
    }
    assertThat(help.replaceAll("\\s+", " ")).contains("(default 8090)").contains("(default 0.05)");
  }

  @Test
  void theOptionsReachTheSimulator() {
    CommandLine commandLine = new CommandLine(new ProviderCommand());
    commandLine.parseArgs("--host=127.0.0.1", "--port=0", "--failure-share=1", "--seed=7");
    ProviderCommand command = commandLine.getCommand();
    try (PaymentProviderSimulator simulator = command.simulator().start()) {
      assertThat(simulator.port()).isPositive();
      assertThat(simulator.outcomeFor("any-key")).isEqualTo(ChargeStatus.FAILED);
    }
  }

  @Test
  void aRefusedSettingIsAUsageErrorWithItsReason() {
    StringWriter err = new StringWriter();
    CommandLine commandLine = new CommandLine(new ProviderCommand());
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setOut(new PrintWriter(new StringWriter(), true));
    int exitCode = commandLine.execute("--delay-min-ms=500", "--delay-max-ms=100", "--port=0");
    assertThat(exitCode).isEqualTo(2);
    assertThat(err.toString()).contains("delay needs 0 <= min <= max");
  }

  private static CommandLine.Model.CommandSpec providerSpec() {
    return new CommandLine(new ProviderCommand()).getCommandSpec();
  }
}
