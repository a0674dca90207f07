package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** {@code iox <command> --help} is the reference: every option says what it is and takes. */
class IoxHelpTest {

  @Test
  void everyOptionOfEveryCommandHasADescription() {
    assertThat(optionsOfAllCommands(option -> String.join(" ", option.description()).isBlank()))
        .isEmpty();
  }

  @Test
  void everyOptionTakingAValueNamesItInWords() {
    assertThat(
            optionsOfAllCommands(
                option ->
                    option.arity().max() > 0
                        && (option.paramLabel() == null
                            || option.paramLabel().startsWith("<")
                            || !option.paramLabel().equals(option.paramLabel().toUpperCase()))))
        .isEmpty();
  }

  @Test
  void everyOptionWithADefaultShowsIt() {
    assertThat(
            optionsOfAllCommands(
                option ->
                    option.defaultValue() != null
                        && !describesDefault(
                            String.join(" ", option.description()),
                            option.defaultValueString(true))))
        .isEmpty();
  }

  /** The description as rendered names the default, or says in words that it is empty. */
  private static boolean describesDefault(String description, String defaultValue) {
    return description.contains("default")
        && (defaultValue.isEmpty()
            ? description.contains("(default: empty)")
            : description.contains(defaultValue));
  }

  @Test
  void helpOfEveryCommandRenders() {
    CommandLine iox = new CommandLine(new Iox());
    for (CommandLine command : allCommands(iox)) {
      assertThat(command.getUsageMessage()).contains("Usage:");
    }
  }

  private static List<String> optionsOfAllCommands(java.util.function.Predicate<OptionSpec> wrong) {
    List<String> found = new ArrayList<>();
    for (CommandLine command : allCommands(new CommandLine(new Iox()))) {
      CommandSpec spec = command.getCommandSpec();
      for (OptionSpec option : spec.options()) {
        if (option.usageHelp() || option.versionHelp()) {
          continue;
        }
        if (wrong.test(option)) {
          found.add(spec.qualifiedName() + " " + option.longestName());
        }
      }
    }
    return found;
  }

  private static List<CommandLine> allCommands(CommandLine root) {
    List<CommandLine> all = new ArrayList<>();
    all.add(root);
    for (CommandLine sub : root.getSubcommands().values()) {
      all.addAll(allCommands(sub));
    }
    return all;
  }
}
