package dev.inboxoutbox.iox;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The measured figures a page quotes, and whether a home page (docs/benchmarks.md,
 * docs/chaos-runs.md) states them.
 *
 * <p>A figure is a number with a unit, read from the page's prose: fenced code blocks, code spans
 * and link targets are left out, because option defaults and settings are written as code ({@code
 * --duration 120s}, {@code 500ms}) and a link target is an address. Of what remains:
 *
 * <ul>
 *   <li>a rate ({@code events/s}, {@code keys/s}, {@code 40/s}, {@code 335,000 per second}), a time
 *       in microseconds ({@code 22 µs per event}, {@code us/key}), a ratio ({@code 1.41×}, {@code
 *       2x}) and CPU time ({@code CPU-seconds}, {@code CPU-ms}) is always a figure: prose states no
 *       setting in those units;
 *   <li>a duration in ms, s or minutes is a figure only in a sentence that says it was measured (a
 *       percentile, {@code median}, {@code measured}, {@code took}, {@code lasted}) or that links
 *       to a home page. Elsewhere a duration in prose is a setting (a backoff, an interval, a
 *       timeout, a default in a settings table), which the page describing that setting is right to
 *       state.
 * </ul>
 *
 * <p>In a range ({@code 31,000 to 44,000 events/s}, {@code 39-55 ms}) both ends are figures. A
 * sentence ends at a full stop, question mark or semicolon before a capital; a paragraph, list
 * item, table row or heading is never part of another's sentence.
 *
 * <p>A home states a figure when it has the same number (commas aside) with the same unit anywhere,
 * code and tables included: as a figure, as an end of a range, or in the spread in brackets right
 * after a figure ({@code p99 45.2 ms (42.9-66.9)}); CPU-seconds also as the machine line's {@code
 * 307 busy, 269 idle}; a ratio as any number, since the homes' ratio columns write ratios bare
 * ({@code 2.05 (≥ 1.0: met)}).
 */
final class MeasuredFigures {

  /** The kinds of unit a figure has. */
  enum Unit {
    RATE,
    MICROSECONDS,
    RATIO,
    CPU_TIME,
    MILLISECONDS,
    SECONDS,
    MINUTES;

    boolean isDuration() {
      return this == MILLISECONDS || this == SECONDS || this == MINUTES;
    }
  }

  /** A number with its unit, and the sentence of the page that quotes it. */
  record Figure(String number, Unit unit, String sentence) {
    @Override
    public String toString() {
      return number + " (" + unit + ") in \"" + sentence + "\"";
    }
  }

  private static final String NUMBER = "(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?";

  private static final Pattern NUMBER_TOKEN =
      Pattern.compile("(?<![\\d.,])" + NUMBER + "(?![\\d]|[.,]\\d)");

  private static final Pattern FIGURE =
      Pattern.compile(
          "(?<![\\w.,/-])("
              + NUMBER
              + ")(?:\\s*(?:to|-|–)\\s*("
              + NUMBER
              + "))?(?:"
              + "(?<rate>\\s*(?:[A-Za-z-]+\\s+){0,2}[A-Za-z-]*/s\\b"
              + "|\\s+(?:[a-z-]+\\s+){0,2}(?:per|a) second\\b)"
              + "|(?<micros>\\s?(?:µs|us)\\b)"
              + "|(?<ratio>\\s?[×x](?![\\w]))"
              + "|(?<cpu>\\s?CPU-(?:seconds?|ms)\\b)"
              + "|(?<millis>\\s?ms\\b)"
              + "|(?<seconds>\\s?(?:s|seconds?)\\b)"
              + "|(?<minutes>\\s?(?:min|minutes?)\\b))");

  /** A spread right after a figure: {@code 45.2 ms (42.9-66.9)}. */
  private static final Pattern SPREAD =
      Pattern.compile("\\s*\\((" + NUMBER + ")\\s*[-–]\\s*(" + NUMBER + ")\\)");

  /** The homes' machine lines: {@code 307 busy, 269 idle}, {@code 32 to 33 idle}. */
  private static final Pattern CPU_BUSY_OR_IDLE =
      Pattern.compile("(?<![\\w.,])(" + NUMBER + ")\\s+(?:CPU-seconds\\s+)?(?:busy|idle)\\b");

  private static final Pattern MEASURED =
      Pattern.compile(
          "(?i)\\b(?:p50|p90|p99|median|measured|took|lasted)\\b"
              + "|benchmarks\\.md|chaos-runs\\.md");

  private static final Pattern FENCED_BLOCK = Pattern.compile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$");
  private static final Pattern HTML_COMMENT = Pattern.compile("(?s)<!--.*?-->");
  private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");
  private static final Pattern LINK_TARGET = Pattern.compile("\\]\\(([^)\\s]*)\\)");
  private static final Pattern BLOCK_START = Pattern.compile("^\\s*(?:\\||[-*] |\\d+\\. |#)");
  private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?;])\\s+(?=[A-Z(\\[*])");

  private MeasuredFigures() {}

  /** Every figure the prose of a Markdown page quotes, in page order. */
  static List<Figure> quotedIn(String markdown) {
    List<Figure> figures = new ArrayList<>();
    for (String sentence : sentences(markdown)) {
      boolean measured = MEASURED.matcher(sentence).find();
      String prose = LINK_TARGET.matcher(sentence).replaceAll("]");
      Matcher figure = FIGURE.matcher(prose);
      while (figure.find()) {
        Unit unit = unitOf(figure);
        if (unit.isDuration() && !measured) {
          continue;
        }
        String quoted = prose.strip();
        figures.add(new Figure(figure.group(1), unit, quoted));
        if (figure.group(2) != null) {
          figures.add(new Figure(figure.group(2), unit, quoted));
        }
      }
    }
    return figures;
  }

  /**
   * Whether the home page states the figure: its number with the same unit (a spread in brackets
   * right after a figure has the figure's unit), CPU-seconds also as {@code busy} or {@code idle},
   * and a ratio as the bare number of a ratio column.
   */
  static boolean heldBy(String home, Figure figure) {
    String number = figure.number().replace(",", "");
    if (figure.unit() == Unit.RATIO) {
      Matcher token = NUMBER_TOKEN.matcher(home);
      while (token.find()) {
        if (token.group().replace(",", "").equals(number)) {
          return true;
        }
      }
      return false;
    }
    return figuresStatedBy(home).contains(number + " " + figure.unit());
  }

  /** Every number with its unit in a home page, as "number UNIT", code and tables included. */
  private static Set<String> figuresStatedBy(String home) {
    Set<String> stated = new HashSet<>();
    Matcher figure = FIGURE.matcher(home);
    while (figure.find()) {
      Unit unit = unitOf(figure);
      stated.add(figure.group(1).replace(",", "") + " " + unit);
      if (figure.group(2) != null) {
        stated.add(figure.group(2).replace(",", "") + " " + unit);
      }
      Matcher spread = SPREAD.matcher(home).region(figure.end(), home.length());
      if (spread.lookingAt()) {
        stated.add(spread.group(1).replace(",", "") + " " + unit);
        stated.add(spread.group(2).replace(",", "") + " " + unit);
      }
    }
    Matcher cpu = CPU_BUSY_OR_IDLE.matcher(home);
    while (cpu.find()) {
      stated.add(cpu.group(1).replace(",", "") + " " + Unit.CPU_TIME);
    }
    return stated;
  }

  /** The figures of a page that none of the homes holds, one line each. */
  static Set<String> notHeldByAny(String page, List<String> homes) {
    Set<String> missing = new TreeSet<>();
    for (Figure figure : quotedIn(page)) {
      if (homes.stream().noneMatch(home -> heldBy(home, figure))) {
        missing.add(figure.toString());
      }
    }
    return missing;
  }

  private static Unit unitOf(Matcher figure) {
    if (figure.group("rate") != null) {
      return Unit.RATE;
    }
    if (figure.group("micros") != null) {
      return Unit.MICROSECONDS;
    }
    if (figure.group("ratio") != null) {
      return Unit.RATIO;
    }
    if (figure.group("cpu") != null) {
      return Unit.CPU_TIME;
    }
    if (figure.group("millis") != null) {
      return Unit.MILLISECONDS;
    }
    if (figure.group("seconds") != null) {
      return Unit.SECONDS;
    }
    return Unit.MINUTES;
  }

  /**
   * The page's prose cut into sentences: a paragraph, list item, table row or heading is a block,
   * and a block's sentences end at a full stop, question mark or semicolon before a capital.
   */
  private static List<String> sentences(String markdown) {
    String prose = FENCED_BLOCK.matcher(markdown).replaceAll("");
    prose = HTML_COMMENT.matcher(prose).replaceAll("");
    prose = CODE_SPAN.matcher(prose).replaceAll("(code)");
    List<String> blocks = new ArrayList<>();
    StringBuilder block = new StringBuilder();
    for (String line : prose.split("\n")) {
      if (line.isBlank() || BLOCK_START.matcher(line).find()) {
        if (!block.isEmpty()) {
          blocks.add(block.toString());
        }
        block.setLength(0);
      }
      if (!line.isBlank()) {
        block.append(block.isEmpty() ? "" : " ").append(line.strip());
      }
    }
    if (!block.isEmpty()) {
      blocks.add(block.toString());
    }
    List<String> sentences = new ArrayList<>();
    for (String each : blocks) {
      sentences.addAll(List.of(SENTENCE_END.split(each)));
    }
    return sentences;
  }
}
