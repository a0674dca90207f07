package dev.inboxoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Core's public API is what docs/api.md lists: a public top-level type added without documenting it
 * (or documented without existing) fails the build. Nested types belong to their owner's entry. The
 * list stays at {@value #MOST_PUBLIC_TYPES} types or fewer (CONTRIBUTING.md): a type joining it
 * takes the place of another, or stays package-private.
 */
class PublicApiTest {

  private static final Path MAIN_CLASSES = Path.of("target", "classes");
  private static final Path API_DOC = Path.of("..", "docs", "api.md");
  private static final String SECTION = "## Public types";
  private static final int MOST_PUBLIC_TYPES = 20;
  private static final Pattern ENTRY = Pattern.compile("^- `(dev\\.inboxoutbox\\.[\\w.]+)`");

  @Test
  void thePublicTopLevelTypesAreExactlyTheOnesDocsApiMdLists() throws Exception {
    Set<String> documented = documentedTypes();

    assertThat(documented).as("types listed in %s", API_DOC).isNotEmpty();
    assertThat(publicTopLevelTypes())
        .as("public top-level types of core's main classes (compare with %s)", API_DOC)
        .containsExactlyInAnyOrderElementsOf(documented);
  }

  @Test
  void coreHasAtMostTwentyPublicTopLevelTypes() throws Exception {
    assertThat(publicTopLevelTypes())
        .as("public top-level types of core's main classes")
        .isNotEmpty()
        .hasSizeLessThanOrEqualTo(MOST_PUBLIC_TYPES);
  }

  private static Set<String> documentedTypes() throws IOException {
    Set<String> types = new TreeSet<>();
    boolean inSection = false;
    for (String line : Files.readAllLines(API_DOC)) {
      if (line.startsWith("## ")) {
        inSection = line.strip().equals(SECTION);
        continue;
      }
      Matcher entry = ENTRY.matcher(line);
      if (inSection && entry.find()) {
        types.add(entry.group(1));
      }
    }
    return types;
  }

  private static Set<String> publicTopLevelTypes() throws IOException, ClassNotFoundException {
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.walk(MAIN_CLASSES)) {
      files
          .map(file -> MAIN_CLASSES.relativize(file).toString())
          .filter(name -> name.endsWith(".class"))
          .filter(name -> !name.contains("$") && !name.endsWith("package-info.class"))
          .map(name -> name.substring(0, name.length() - ".class".length()))
          .map(name -> name.replace(MAIN_CLASSES.getFileSystem().getSeparator(), "."))
          .forEach(names::add);
    }
    Set<String> publicTypes = new TreeSet<>();
    ClassLoader loader = PublicApiTest.class.getClassLoader();
    for (String name : names) {
      // Not initialised: only the modifiers are read.
      if (Modifier.isPublic(Class.forName(name, false, loader).getModifiers())) {
        publicTypes.add(name);
      }
    }
    return publicTypes;
  }
}
