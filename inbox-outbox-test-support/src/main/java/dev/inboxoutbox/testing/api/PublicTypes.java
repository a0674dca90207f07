package dev.inboxoutbox.testing.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The two sides of a module's public API check: the types a section of docs/api.md lists, and the
 * public top-level types the module's compiled classes hold. Nested types are not compared: they
 * belong to their owner's entry.
 */
public final class PublicTypes {

  /** docs/api.md, seen from a module's directory (where Surefire runs its tests). */
  public static final Path API_DOC = Path.of("..", "docs", "api.md");

  /** The module's main classes, seen from its directory. */
  public static final Path MAIN_CLASSES = Path.of("target", "classes");

  private static final Pattern ENTRY = Pattern.compile("^- `(dev\\.inboxoutbox\\.[\\w.]+)`");

  private PublicTypes() {}

  /**
   * Fails unless the public top-level types of the module's main classes are exactly the ones
   * {@code section} of docs/api.md lists, and the section lists at least one.
   *
   * @param module how the failure message names the module, e.g. "the relay"
   * @param loader the test's class loader, which sees the module's main classes
   */
  public static void assertExactlyTheDocumentedOnes(
      String section, String module, ClassLoader loader) {
    Set<String> documented = listedIn(API_DOC, section);
    assertThat(documented).as("types listed in %s", API_DOC).isNotEmpty();
    assertThat(publicTopLevelIn(MAIN_CLASSES, loader))
        .as("public top-level types of %s's main classes (compare with %s)", module, API_DOC)
        .containsExactlyInAnyOrderElementsOf(documented);
  }

  /**
   * The fully qualified names listed as {@code - `dev.inboxoutbox...`} entries under the level-two
   * heading {@code section} (its level-three subsections included) of {@code doc}.
   *
   * @throws IllegalArgumentException if {@code doc} has no such heading
   */
  public static Set<String> listedIn(Path doc, String section) {
    List<String> lines;
    try {
      lines = Files.readAllLines(doc);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + doc, e);
    }
    if (lines.stream().map(String::strip).noneMatch(section::equals)) {
      throw new IllegalArgumentException(doc + " has no heading '" + section + "'");
    }
    Set<String> types = new TreeSet<>();
    boolean inSection = false;
    for (String line : lines) {
      if (line.startsWith("## ")) {
        inSection = line.strip().equals(section);
        continue;
      }
      Matcher entry = ENTRY.matcher(line);
      if (inSection && entry.find()) {
        types.add(entry.group(1));
      }
    }
    return types;
  }

  /**
   * The public top-level types among the class files under {@code classes}, loaded (not
   * initialised) through {@code loader} to read their modifiers.
   */
  public static Set<String> publicTopLevelIn(Path classes, ClassLoader loader) {
    Set<String> publicTypes = new TreeSet<>();
    for (String name : topLevelClassNames(classes)) {
      try {
        if (Modifier.isPublic(Class.forName(name, false, loader).getModifiers())) {
          publicTypes.add(name);
        }
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(name + " is under " + classes + " but cannot be loaded", e);
      }
    }
    return publicTypes;
  }

  private static List<String> topLevelClassNames(Path classes) {
    String separator = classes.getFileSystem().getSeparator();
    try (Stream<Path> files = Files.walk(classes)) {
      return files
          .map(file -> classes.relativize(file).toString())
          .filter(name -> name.endsWith(".class"))
          .filter(name -> !name.contains("$") && !name.endsWith("package-info.class"))
          .map(name -> name.substring(0, name.length() - ".class".length()))
          .map(name -> name.replace(separator, "."))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + classes, e);
    }
  }
}
