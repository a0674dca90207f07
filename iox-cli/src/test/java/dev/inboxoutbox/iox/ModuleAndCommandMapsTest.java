package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

/**
 * README.md's module table and CONTRIBUTING.md's package table say where things live, and both name
 * the {@code iox} commands each module contributes. They are checked against the build: the modules
 * are the root pom's {@code <module>}s (profiles included), a package lives in the module whose
 * {@code src/main/java} or {@code src/test/java} holds it, a type a row names in a code span is
 * declared in that row's module when the repository declares it at all, and the commands are {@link
 * Iox}'s picocli subcommands, each belonging to the module that declares its class.
 */
class ModuleAndCommandMapsTest {

  private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
  private static final Pattern COMMAND = Pattern.compile("`iox ([a-z][a-z-]*)");
  private static final Pattern TYPE_NAME = Pattern.compile("@?([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)");
  private static final Pattern DECLARED =
      Pattern.compile("\\b(?:class|record|interface|enum|@interface)\\s+([A-Z]\\w*)");

  private static Set<String> modules;
  private static Map<String, Set<String>> modulesByType;
  private static Map<String, String> moduleByCommand;

  @BeforeAll
  static void readTheBuild() throws Exception {
    modules = new TreeSet<>();
    NodeList declared =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(Repository.ROOT.resolve("pom.xml").toFile())
            .getElementsByTagName("module");
    for (int i = 0; i < declared.getLength(); i++) {
      modules.add(declared.item(i).getTextContent().trim());
    }
    modulesByType = new HashMap<>();
    for (String module : modules) {
      for (Path source : javaSources(Repository.ROOT.resolve(module))) {
        Matcher type = DECLARED.matcher(Files.readString(source));
        while (type.find()) {
          modulesByType.computeIfAbsent(type.group(1), t -> new TreeSet<>()).add(module);
        }
      }
    }
    moduleByCommand = new HashMap<>();
    for (Map.Entry<String, CommandLine> command : Iox.commandLine().getSubcommands().entrySet()) {
      String type = command.getValue().getCommand().getClass().getSimpleName();
      Set<String> declaring = modulesByType.getOrDefault(type, Set.of());
      assertThat(declaring).as("the module declaring %s", type).hasSize(1);
      moduleByCommand.put(command.getKey(), declaring.iterator().next());
    }
  }

  @Test
  void readmeListsEveryModuleOfTheBuildAndNoOther() {
    Set<String> listed = new TreeSet<>();
    for (Row row : rows("README.md", "## Modules")) {
      listed.addAll(codeSpans(row.cells().get(0)));
    }
    assertThat(listed).as("modules README.md's table lists").isEqualTo(modules);
  }

  @Test
  void contributingNamesModulesOfTheBuildAndEveryPackageWhereItLives() throws IOException {
    Set<String> wrong = new TreeSet<>();
    Set<String> listedPackages = new TreeSet<>();
    for (Row row : rows("CONTRIBUTING.md", "## Where things live")) {
      String module = row.cells().get(1).strip();
      String thePackage = codeSpans(row.cells().get(0)).get(0);
      listedPackages.add(thePackage);
      String directory = thePackage.replace('.', '/');
      if (!modules.contains(module)) {
        wrong.add(thePackage + ": no module " + module);
      } else if (!Files.isDirectory(
              Repository.ROOT.resolve(module).resolve("src/main/java").resolve(directory))
          && !Files.isDirectory(
              Repository.ROOT.resolve(module).resolve("src/test/java").resolve(directory))) {
        wrong.add(thePackage + ": not in " + module);
      }
    }
    assertThat(wrong).as("CONTRIBUTING.md's packages and their modules").isEmpty();
    assertThat(listedPackages)
        .as("CONTRIBUTING.md's packages")
        .containsAll(mainPackagesOfTheBuild());
  }

  @Test
  void everyTypeContributingSaysAPackageHoldsIsDeclaredInThatModule() {
    Set<String> wrong = new TreeSet<>();
    for (Row row : rows("CONTRIBUTING.md", "## Where things live")) {
      String module = row.cells().get(1).strip();
      for (String span : codeSpans(row.cells().get(2))) {
        Matcher type = TYPE_NAME.matcher(span);
        if (!type.matches()) {
          continue;
        }
        Set<String> declaring = modulesByType.get(type.group(1));
        if (declaring != null && !declaring.contains(module)) {
          wrong.add(module + ": " + type.group(1) + " is declared in " + declaring);
        }
      }
    }
    assertThat(wrong)
        .as("types CONTRIBUTING.md places in a module that does not declare them")
        .isEmpty();
  }

  @Test
  void readmeNamesEveryIoxCommandInTheRowOfItsModule() {
    Map<String, Set<String>> rowsByCommand = new HashMap<>();
    for (Row row : rows("README.md", "## Modules")) {
      for (String command : commands(row.cells().get(1))) {
        rowsByCommand
            .computeIfAbsent(command, c -> new TreeSet<>())
            .addAll(codeSpans(row.cells().get(0)));
      }
    }
    assertCommandsNamedInTheirModulesRows(rowsByCommand, "README.md");
  }

  @Test
  void contributingNamesEveryIoxCommandInARowOfItsModule() {
    Map<String, Set<String>> rowsByCommand = new HashMap<>();
    for (Row row : rows("CONTRIBUTING.md", "## Where things live")) {
      for (String command : commands(row.cells().get(2))) {
        rowsByCommand
            .computeIfAbsent(command, c -> new TreeSet<>())
            .add(row.cells().get(1).strip());
      }
    }
    assertCommandsNamedInTheirModulesRows(rowsByCommand, "CONTRIBUTING.md");
  }

  /**
   * Every subcommand is named in a row of the module declaring it; a row may also name another
   * module's command it serves (the dev stack's Connect worker for {@code iox bench}), but only one
   * that exists.
   */
  private static void assertCommandsNamedInTheirModulesRows(
      Map<String, Set<String>> modulesByCommand, String page) {
    assertThat(moduleByCommand.keySet())
        .as("iox's subcommands, against the commands %s names", page)
        .containsAll(modulesByCommand.keySet());
    Set<String> missing = new TreeSet<>();
    moduleByCommand.forEach(
        (command, module) -> {
          if (!modulesByCommand.getOrDefault(command, Set.of()).contains(module)) {
            missing.add("iox " + command + " (" + module + ")");
          }
        });
    assertThat(missing).as("commands %s does not name in the row of their module", page).isEmpty();
  }

  private static List<String> commands(String text) {
    List<String> named = new ArrayList<>();
    Matcher command = COMMAND.matcher(text);
    while (command.find()) {
      named.add(command.group(1));
    }
    return named;
  }

  private record Row(List<String> cells) {}

  /** The body rows of the first table after a heading, cells split on unescaped pipes. */
  private static List<Row> rows(String page, String heading) {
    List<String> lines;
    try {
      lines = Files.readAllLines(Repository.ROOT.resolve(page));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    int start = lines.indexOf(heading);
    assertThat(start).as("%s in %s", heading, page).isNotNegative();
    List<Row> rows = new ArrayList<>();
    int line = start + 1;
    while (line < lines.size() && !lines.get(line).startsWith("|")) {
      line++;
    }
    for (line += 2; line < lines.size() && lines.get(line).startsWith("|"); line++) {
      String row = lines.get(line).strip();
      List<String> cells =
          new ArrayList<>(List.of(row.substring(1, row.length() - 1).split("\\|")));
      rows.add(new Row(cells));
    }
    assertThat(rows).as("rows of the table under %s in %s", heading, page).isNotEmpty();
    return rows;
  }

  private static List<String> codeSpans(String text) {
    List<String> spans = new ArrayList<>();
    Matcher span = CODE_SPAN.matcher(text);
    while (span.find()) {
      spans.add(span.group(1));
    }
    return spans;
  }

  private static Set<String> mainPackagesOfTheBuild() throws IOException {
    Set<String> packages = new TreeSet<>();
    for (String module : modules) {
      Path main = Repository.ROOT.resolve(module).resolve("src/main/java");
      if (!Files.isDirectory(main)) {
        continue;
      }
      for (Path source : javaSources(main)) {
        packages.add(main.relativize(source.getParent()).toString().replace('/', '.'));
      }
    }
    return packages;
  }

  private static List<Path> javaSources(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(directory)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !p.toString().contains("/target/"))
          .filter(
              p ->
                  p.toString().contains("/src/main/java/")
                      || p.toString().contains("/src/test/java/"))
          .toList();
    }
  }
}
