package dev.inboxoutbox.examples.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/jpa.md shows this module's real source: each fenced code block is preceded by {@code <!--
 * source: path -->} (from the repository's root) and appears in that file, verbatim up to its
 * indentation, so the page cannot drift from the code the integration tests run.
 */
class JpaDocsTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern SOURCE = Pattern.compile("^<!-- source: (\\S+) -->$");

  record Block(int line, String source, String code) {}

  @Test
  void everyCodeBlockIsTheNamedFilesSource() throws IOException {
    List<Block> blocks = blocks(Files.readAllLines(ROOT.resolve("docs/jpa.md")));

    assertThat(blocks).as("code blocks in docs/jpa.md").hasSizeGreaterThanOrEqualTo(6);
    for (Block block : blocks) {
      assertThat(block.source())
          .as(
              "docs/jpa.md line %d: a code block needs <!-- source: path --> above it",
              block.line())
          .isNotNull();
      Path file = ROOT.resolve(block.source());
      assertThat(file).as("docs/jpa.md line %d", block.line()).isRegularFile();
      String text = Files.readString(file);
      assertThat(appearsIndented(block.code(), text))
          .as("docs/jpa.md line %d: the block appears in %s", block.line(), block.source())
          .isTrue();
    }
  }

  /** Fenced blocks, each with the source named on the line just above its opening fence. */
  private static List<Block> blocks(List<String> lines) {
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).startsWith("```")) {
        continue;
      }
      String source = null;
      if (i > 0) {
        Matcher named = SOURCE.matcher(lines.get(i - 1).strip());
        source = named.matches() ? named.group(1) : null;
      }
      int start = i + 1;
      int end = start;
      while (end < lines.size() && !lines.get(end).startsWith("```")) {
        end++;
      }
      blocks.add(new Block(i + 1, source, String.join("\n", lines.subList(start, end)) + "\n"));
      i = end;
    }
    return blocks;
  }

  /** Whether {@code code}, indented by some number of spaces, is part of {@code text}. */
  private static boolean appearsIndented(String code, String text) {
    for (int indent = 0; indent <= 12; indent += 2) {
      String prefix = " ".repeat(indent);
      StringBuilder indented = new StringBuilder();
      for (String line : code.split("\n", -1)) {
        if (!line.isEmpty()) {
          indented.append(prefix).append(line);
        }
        indented.append('\n');
      }
      indented.setLength(indented.length() - 1);
      if (text.contains(indented)) {
        return true;
      }
    }
    return false;
  }
}
