package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The pages (README.md, CONTRIBUTING.md, docs/) name only what exists: a type of this repository (a
 * test cited by name included, and its method when one is named), an {@code iox} option, a starter
 * property. A rename that leaves a page behind fails the build here.
 *
 * <p>Other projects' types the pages mention (Spring's, Kafka's, Debezium's) are listed in {@link
 * #OTHER_PROJECTS_TYPES}, and event types are the string constants the services use.
 */
class DocsReferencesTest {

  /** `SomeType`, `SomeType.member`, `SomeType#member`, `SomeType.member()`. */
  private static final Pattern TYPE =
      Pattern.compile("`([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)((?:[.#][a-zA-Z_]\\w*)*)(?:\\(\\))?`");

  /** `--option`, `--option=value`, `--option value`. */
  private static final Pattern OPTION = Pattern.compile("`(--[a-z][a-z0-9-]*)(?:[ =][^`]*)?`");

  /** `inbox-outbox.group.property`, or a group written with a trailing dot or `.*`. */
  private static final Pattern PROPERTY = Pattern.compile("`(inbox-outbox\\.[a-z0-9.-]*[a-z0-9])");

  private static final Set<String> OTHER_PROJECTS_TYPES =
      Set.of(
          // Java
          "ConcurrentHashMap",
          "IllegalArgumentException",
          "IllegalStateException",
          "InterruptedException",
          "NoSuchMethodError",
          "NoSuchMethodException",
          "RuntimeException",
          "DataSource",
          // Micrometer and OpenTelemetry
          "ObservationRegistry",
          "DefaultTracingObservationHandler",
          "PropagatingReceiverTracingObservationHandler",
          "PropagatingSenderTracingObservationHandler",
          "Slf4JEventListener",
          "EventPublishingContextWrapper",
          "ContextStorage",
          // Kafka clients, the broker and Kafka Connect
          "BrokerServer",
          "CommitFailedException",
          "ConnectDistributed",
          "CooperativeStickyAssignor",
          "EnvVarConfigProvider",
          "FileConfigProvider",
          "JsonConverter",
          "KafkaConsumer",
          "RebalanceInProgressException",
          "RecordTooLargeException",
          "RequestMetrics",
          "RetriableException",
          "StringConverter",
          // Debezium
          "CloudEventsConverter",
          "JdbcOffsetBackingStore",
          "MilliSecondsBehindSource",
          "PostgresConnector",
          "WalPositionLocator",
          // Spring Framework, Spring Kafka, Spring Boot, Micrometer, Flyway, Jackson, JPA
          "AckMode",
          "ApplicationContextRunner",
          "AutoConfiguration",
          "BatchInterceptor",
          "BatchMessageListener",
          "ConsumerAwareRebalanceListener",
          "ClassicConfiguration",
          "ContainerCustomizer",
          "ContainerProperties",
          "DataSourceUtils",
          "DependsOnDatabaseInitialization",
          "DefaultKafkaProducerFactory",
          "DefaultKafkaProducerFactoryCustomizer",
          "DeadLetterPublishingRecoverer",
          "DefaultErrorHandler",
          "EntityManager",
          "FlywayMigrationStrategy",
          "HandlerAdapter",
          "HandlerInterceptor",
          "JdbcClient",
          "JdbcConnectionDetails",
          "JdbcTemplate",
          "JdbcTransactionManager",
          "JpaTransactionManager",
          "JsonMapper",
          "JsonNode",
          "KafkaAdmin",
          "KafkaConnectionDetails",
          "MeterRegistry",
          "MigrateResult",
          "PlatformTransactionManager",
          "ProducerFactory",
          "PropertiesLauncher",
          "TransactionSynchronization",
          "TransactionTemplate",
          // JPA and Hibernate under Spring (docs/jpa.md)
          "DefaultJpaDialect",
          "EntityManagerFactory",
          "GenerationType",
          "HibernateJpaAutoConfiguration",
          "HibernateJpaDialect",
          "LocalContainerEntityManagerFactoryBean",
          "OpenEntityManagerInViewInterceptor",
          "TransactionAutoConfiguration");

  private static List<Path> pages;
  private static Map<String, String> sourcesByType;
  private static String allSources;

  @BeforeAll
  static void readRepository() throws IOException {
    try (Stream<Path> docs = Files.walk(Repository.ROOT.resolve("docs"))) {
      pages = new ArrayList<>(docs.filter(p -> p.toString().endsWith(".md")).sorted().toList());
    }
    pages.add(Repository.ROOT.resolve("README.md"));
    pages.add(Repository.ROOT.resolve("CONTRIBUTING.md"));
    sourcesByType = new java.util.HashMap<>();
    StringBuilder all = new StringBuilder();
    Pattern declared =
        Pattern.compile("\\b(?:class|record|interface|enum|@interface)\\s+([A-Z]\\w*)");
    try (Stream<Path> files = Files.walk(Repository.ROOT)) {
      for (Path file :
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> !p.toString().contains("/target/"))
              .toList()) {
        String source = Files.readString(file);
        all.append(source);
        Matcher type = declared.matcher(source);
        while (type.find()) {
          sourcesByType.merge(type.group(1), source, String::concat);
        }
      }
    }
    allSources = all.toString();
  }

  @Test
  void everyTypeAPageNamesExistsWithTheMemberItNames() {
    Set<String> unknown = new TreeSet<>();
    for (Path page : pages) {
      Matcher reference = TYPE.matcher(read(page));
      while (reference.find()) {
        String type = reference.group(1);
        String member = reference.group(2).isEmpty() ? "" : reference.group(2).substring(1);
        String source = sourcesByType.get(type);
        if (source == null) {
          if (!OTHER_PROJECTS_TYPES.contains(type) && !allSources.contains("\"" + type + "\"")) {
            unknown.add(where(page) + ": " + type);
          }
        } else if (!member.isEmpty()
            && !member.contains(".")
            && !Pattern.compile("\\b" + Pattern.quote(member) + "\\b").matcher(source).find()) {
          unknown.add(where(page) + ": " + type + "." + member);
        }
      }
    }
    assertThat(unknown).as("types or members named by a page that the sources lack").isEmpty();
  }

  @Test
  void everyIoxOptionAPageNamesExists() {
    Set<String> options = new HashSet<>();
    collectOptions(Iox.commandLine(), options);
    Set<String> unknown = new TreeSet<>();
    for (Path page : pages) {
      Matcher reference = OPTION.matcher(read(page));
      while (reference.find()) {
        if (!options.contains(reference.group(1))) {
          unknown.add(where(page) + ": " + reference.group(1));
        }
      }
    }
    assertThat(unknown).as("options named by a page that no iox command has").isEmpty();
  }

  @Test
  void everyStarterPropertyAPageNamesExists() {
    Path metadata =
        Repository.ROOT.resolve(
            "inbox-outbox-spring-boot-starter/target/classes/META-INF/spring-configuration-metadata.json");
    assertThat(metadata)
        .as("the starter's configuration metadata, built before this module")
        .exists();
    Set<String> properties = new HashSet<>();
    for (JsonNode property :
        JsonMapper.builder().build().readTree(metadata.toFile()).get("properties")) {
      properties.add(property.get("name").asString());
    }
    Set<String> unknown = new TreeSet<>();
    for (Path page : pages) {
      Matcher reference = PROPERTY.matcher(read(page));
      while (reference.find()) {
        String named = reference.group(1);
        boolean known =
            properties.contains(named)
                || properties.stream().anyMatch(p -> p.startsWith(named + "."))
                || properties.stream().anyMatch(p -> named.startsWith(p + "."));
        if (!known) {
          unknown.add(where(page) + ": " + named);
        }
      }
    }
    assertThat(unknown).as("starter properties named by a page that the starter lacks").isEmpty();
  }

  private static void collectOptions(CommandLine command, Set<String> options) {
    command.getCommandSpec().options().forEach(option -> options.addAll(List.of(option.names())));
    command.getSubcommands().values().forEach(sub -> collectOptions(sub, options));
  }

  private static String where(Path page) {
    return Repository.ROOT.relativize(page).toString();
  }

  private static String read(Path page) {
    try {
      return Files.readString(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
