package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A measured figure lives in one row of its home, docs/benchmarks.md or docs/chaos-runs.md, with
 * its command, commit and spread; every other page (README.md, CONTRIBUTING.md, docs/) links to
 * that row. A page that quotes a figure its home does not hold (a copy left behind when the row was
 * re-measured, or a figure that never had a row) fails here. What counts as a figure: {@link
 * MeasuredFigures}. The rows carry anchors, and a link to a row or section of a home must find it.
 *
 * <p>The decision records (docs/adr/) are left out: each states the evidence its decision was taken
 * on, measured at the commit it names, and stays as written when a row is measured again; a current
 * figure is never read from them.
 */
class FiguresLiveInTheirHomesTest {

  private static final List<Path> HOMES =
      List.of(
          Repository.ROOT.resolve("docs/benchmarks.md"),
          Repository.ROOT.resolve("docs/chaos-runs.md"));

  private static final Path DECISION_RECORDS = Repository.ROOT.resolve("docs/adr");

  @Test
  void everyFigureAPageQuotesIsHeldByAHome() throws IOException {
    List<String> homes = HOMES.stream().map(FiguresLiveInTheirHomesTest::read).toList();
    Map<String, Set<String>> missingByPage = new TreeMap<>();
    for (Path page : pagesOutsideTheHomes()) {
      Set<String> missing = MeasuredFigures.notHeldByAny(read(page), homes);
      if (!missing.isEmpty()) {
        missingByPage.put(Repository.ROOT.relativize(page).toString(), missing);
      }
    }
    assertThat(missingByPage)
        .as("figures quoted by pages that neither docs/benchmarks.md nor docs/chaos-runs.md holds")
        .isEmpty();
  }

  /**
   * A link into a home: {@code (benchmarks.md#relay-drain)}, {@code (docs/chaos-runs.md#target)}.
   */
  private static final Pattern LINK_INTO_A_HOME =
      Pattern.compile("\\]\\((?:[\\w./-]*/)?(benchmarks|chaos-runs)\\.md#([\\w-]+)\\)");

  private static final Pattern EXPLICIT_ANCHOR = Pattern.compile("<a id=\"([\\w-]+)\"></a>");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");

  @Test
  void everyLinkToARowOrSectionOfAHomeFindsIt() throws IOException {
    List<Path> pages = pagesOutsideTheHomes();
    pages.addAll(HOMES);
    Set<String> broken = new TreeSet<>();
    int links = 0;
    for (Path page : pages) {
      Matcher link = LINK_INTO_A_HOME.matcher(read(page));
      while (link.find()) {
        links++;
        Path home = Repository.ROOT.resolve("docs").resolve(link.group(1) + ".md");
        if (!anchorsOf(read(home)).contains(link.group(2))) {
          broken.add(
              Repository.ROOT.relativize(page) + ": " + link.group(1) + ".md#" + link.group(2));
        }
      }
    }
    assertThat(links).as("links into the homes").isGreaterThan(20);
    assertThat(broken).as("links to an anchor a home does not have").isEmpty();
  }

  /** The explicit ids of a page, and its headings as GitHub turns them into anchors. */
  private static Set<String> anchorsOf(String page) {
    Set<String> anchors = new HashSet<>();
    Matcher explicit = EXPLICIT_ANCHOR.matcher(page);
    while (explicit.find()) {
      anchors.add(explicit.group(1));
    }
    Matcher heading = HEADING.matcher(page);
    while (heading.find()) {
      anchors.add(
          heading
              .group(1)
              .strip()
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\w\\- ]", "")
              .replace(' ', '-'));
    }
    return anchors;
  }

  private static List<Path> pagesOutsideTheHomes() throws IOException {
    List<Path> pages = new ArrayList<>();
    try (Stream<Path> docs = Files.walk(Repository.ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !HOMES.contains(p))
          .filter(p -> !p.startsWith(DECISION_RECORDS))
          .forEach(pages::add);
    }
    pages.add(Repository.ROOT.resolve("README.md"));
    pages.add(Repository.ROOT.resolve("CONTRIBUTING.md"));
    assertThat(pages).as("pages besides the homes").hasSizeGreaterThan(10);
    return pages;
  }

  private static String read(Path page) {
    try {
      return Files.readString(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
