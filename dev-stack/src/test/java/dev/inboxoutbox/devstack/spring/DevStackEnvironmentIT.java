package dev.inboxoutbox.devstack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Which Kafka a Spring context is pointed at, each case in a JVM of its own: the dev stack is one
 * per JVM, and what decides is the JVM's system properties at its start, as in a user's test run.
 */
class DevStackEnvironmentIT {

  @Test
  void anExplicitKafkaPortWinsOverTheBootstrapServersSpringKafkaTestSetAsASystemProperty()
      throws Exception {
    int port = freePort();

    // spring-kafka-test's brokers publish themselves in this system property.
    String bootstrap =
        bootstrapInAFreshJvm(
            "-Diox.kafka.port=" + port, "-Dspring.kafka.bootstrap-servers=localhost:1");

    assertThat(bootstrap).isEqualTo("localhost:" + port);
  }

  @Test
  void theBrokerOnAnExplicitPortIsTheOneSpringIsPointedAt() throws Exception {
    int port = freePort();

    assertThat(bootstrapInAFreshJvm("-Diox.kafka.port=" + port)).isEqualTo("localhost:" + port);
  }

  @Test
  void aKafkaPortAmongTheApplicationsOwnPropertiesIsHonouredToo() throws Exception {
    int port = freePort();

    String bootstrap =
        bootstrapInAFreshJvm(
            List.of("-Dspring.kafka.bootstrap-servers=localhost:1"),
            List.of("iox.kafka.port=" + port));

    assertThat(bootstrap).isEqualTo("localhost:" + port);
  }

  @Test
  void withoutAnExplicitPortABootstrapServersSettingIsLeftAlone() throws Exception {
    assertThat(bootstrapInAFreshJvm("-Dspring.kafka.bootstrap-servers=localhost:1"))
        .isEqualTo("localhost:1");
  }

  private static String bootstrapInAFreshJvm(String... systemProperties) throws Exception {
    return bootstrapInAFreshJvm(List.of(systemProperties), List.of());
  }

  /**
   * What the post-processor leaves in {@code spring.kafka.bootstrap-servers} in a JVM started with
   * {@code systemProperties}, for an application whose own configuration holds {@code
   * applicationProperties} ({@code name=value}).
   */
  private static String bootstrapInAFreshJvm(
      List<String> systemProperties, List<String> applicationProperties) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(systemProperties);
    command.addAll(
        List.of(
            "-cp", System.getProperty("java.class.path"), PointsSpringAtTheStack.class.getName()));
    command.addAll(applicationProperties);
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).as(output).isZero();
      return output
          .lines()
          .filter(line -> line.startsWith(PointsSpringAtTheStack.PREFIX))
          .map(line -> line.substring(PointsSpringAtTheStack.PREFIX.length()))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no bootstrap servers printed:\n" + output));
    } finally {
      child.destroyForcibly();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** A Spring application's start, reduced to the dev stack's environment post-processor. */
  static final class PointsSpringAtTheStack {
    static final String PREFIX = "spring.kafka.bootstrap-servers=";

    public static void main(String[] args) {
      StandardEnvironment environment = new StandardEnvironment();
      Map<String, Object> application = new HashMap<>();
      for (String property : args) {
        application.put(
            property.substring(0, property.indexOf('=')),
            property.substring(property.indexOf('=') + 1));
      }
      // Where application.yml and @SpringBootTest(properties) rank: below the system properties.
      environment.getPropertySources().addLast(new MapPropertySource("application", application));
      new DevStackEnvironment().postProcessEnvironment(environment, new SpringApplication());
      System.out.println(PREFIX + environment.getProperty("spring.kafka.bootstrap-servers"));
      System.out.flush();
      System.exit(0);
    }
  }
}
