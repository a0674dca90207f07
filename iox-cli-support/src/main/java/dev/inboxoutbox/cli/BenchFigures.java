package dev.inboxoutbox.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import tools.jackson.databind.json.JsonMapper;

/**
 * The figures of one {@code iox bench} run (or {@code iox chaos --inbox-price}), every part
 * reporting the same way: each figure's samples (one per repeat), printed as median and spread,
 * with its ratio to a baseline measured in the same run and the target it is held to, and written
 * as JSON for scripts.
 */
public final class BenchFigures {

  /** Whether a larger value of a figure is better (throughput) or worse (cost, latency). */
  public enum Better {
    HIGHER,
    LOWER
  }

  /**
   * What a figure is held to: a bound on its median ({@code atMost}, {@code atLeast}) or on its
   * ratio to the baseline ({@code ratioAtLeast}).
   */
  public record Target(String kind, double value) {

    public static Target atMost(double value) {
      return new Target("at most", value);
    }

    public static Target atLeast(double value) {
      return new Target("at least", value);
    }

    public static Target ratioAtLeast(double value) {
      return new Target("ratio at least", value);
    }

    public boolean metBy(double median, OptionalDouble ratio) {
      return switch (kind) {
        case "at most" -> median <= value;
        case "at least" -> median >= value;
        default -> ratio.isPresent() && ratio.getAsDouble() >= value;
      };
    }

    public String describe(String unit) {
      return kind.equals("ratio at least")
          ? String.format(Locale.ROOT, "ratio >= %.2f", value)
          : String.format(
              Locale.ROOT, "%s %s %s", kind.equals("at most") ? "<=" : ">=", number(value), unit);
    }
  }

  /**
   * One figure. {@code ratio} compares the median with the baseline's median so that 1.00 means "as
   * good as the baseline" and larger is better, whichever way the unit points. A {@code detail}
   * breaks another figure down (a stage's share of a run): it is in the JSON, and its part prints
   * it in a table of its own rather than in the common one.
   */
  public record Figure(
      String part,
      String name,
      String unit,
      Better better,
      List<Double> samples,
      Optional<Figure> baseline,
      Optional<Target> target,
      boolean detail) {

    public Figure {
      if (samples.isEmpty()) {
        throw new IllegalArgumentException("figure " + name + " has no samples");
      }
      samples = List.copyOf(samples);
    }

    public double median() {
      List<Double> sorted = sorted();
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    public double min() {
      return sorted().get(0);
    }

    public double max() {
      return sorted().get(samples.size() - 1);
    }

    public OptionalDouble ratio() {
      if (baseline.isEmpty()) {
        return OptionalDouble.empty();
      }
      double base = baseline.get().median();
      return OptionalDouble.of(better == Better.HIGHER ? median() / base : base / median());
    }

    public Optional<Boolean> met() {
      return target.map(t -> t.metBy(median(), ratio()));
    }

    private List<Double> sorted() {
      List<Double> sorted = new ArrayList<>(samples);
      Collections.sort(sorted);
      return sorted;
    }
  }

  private final List<Figure> figures = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  public Figure add(
      String part,
      String name,
      String unit,
      Better better,
      List<Double> samples,
      Optional<Figure> baseline,
      Optional<Target> target) {
    Figure figure = new Figure(part, name, unit, better, samples, baseline, target, false);
    figures.add(figure);
    return figure;
  }

  /**
   * A {@link Figure#detail() detail}: written to the JSON, left out of the common table (its part
   * prints it where it belongs); no baseline, no target.
   */
  public Figure addDetail(
      String part, String name, String unit, Better better, List<Double> samples) {
    Figure figure =
        new Figure(part, name, unit, better, samples, Optional.empty(), Optional.empty(), true);
    figures.add(figure);
    return figure;
  }

  /** A line printed under the table and kept in the JSON, such as the machine line. */
  public void note(String line) {
    notes.add(line);
  }

  public List<Figure> figures() {
    return List.copyOf(figures);
  }

  public void printTable(PrintStream out) {
    String format = "%-10s %-78s %12s %21s %7s %18s %5s%n";
    out.printf(format, "part", "figure", "median", "spread (min-max)", "ratio", "target", "met");
    int details = 0;
    for (Figure figure : figures) {
      if (figure.detail()) {
        details++;
        continue;
      }
      out.printf(
          format,
          figure.part(),
          figure.name() + figure.baseline().map(b -> " vs " + b.name()).orElse(""),
          number(figure.median()) + " " + figure.unit(),
          number(figure.min()) + "-" + number(figure.max()),
          figure.ratio().isPresent()
              ? String.format(Locale.ROOT, "%.2f", figure.ratio().getAsDouble())
              : "-",
          figure.target().map(t -> t.describe(figure.unit())).orElse("-"),
          figure.met().map(met -> met ? "yes" : "NO").orElse("-"));
    }
    if (details > 0) {
      out.printf(
          "(%d detail figure(s), such as the consumer's time per stage, are printed with their part"
              + " and written with --json)%n",
          details);
    }
    notes.forEach(out::println);
  }

  /** One JSON document: every figure with its samples, median, spread, ratio and target. */
  public String toJson() {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Figure figure : figures) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("part", figure.part());
      row.put("name", figure.name());
      row.put("unit", figure.unit());
      row.put("better", figure.better().name().toLowerCase(Locale.ROOT));
      row.put("samples", figure.samples());
      row.put("median", figure.median());
      row.put("min", figure.min());
      row.put("max", figure.max());
      if (figure.detail()) {
        row.put("detail", true);
      }
      figure.baseline().ifPresent(b -> row.put("baseline", b.name()));
      if (figure.ratio().isPresent()) {
        row.put("ratio", figure.ratio().getAsDouble());
      }
      figure
          .target()
          .ifPresent(
              t -> {
                row.put("target", Map.of("kind", t.kind(), "value", t.value()));
                row.put("met", t.metBy(figure.median(), figure.ratio()));
              });
      rows.add(row);
    }
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("figures", rows);
    document.put("notes", notes);
    return JsonMapper.builder()
        .build()
        .writerWithDefaultPrettyPrinter()
        .writeValueAsString(document);
  }

  private static String number(double value) {
    double magnitude = Math.abs(value);
    return magnitude >= 100 || value == Math.rint(value)
        ? String.format(Locale.ROOT, "%.0f", value)
        : String.format(Locale.ROOT, magnitude >= 10 ? "%.1f" : "%.2f", value);
  }
}
