package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.testing.api.PublicTypes;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The starter's public API is what docs/api.md lists for it: a public top-level type added without
 * documenting it (or documented without existing) fails the build. Nested types belong to their
 * owner's entry.
 */
class PublicApiTest {

  private static final String SECTION = "## Public types of inbox-outbox-spring-boot-starter";

  @Test
  void thePublicTopLevelTypesAreExactlyTheOnesDocsApiMdLists() {
    Set<String> documented = PublicTypes.listedIn(PublicTypes.API_DOC, SECTION);

    assertThat(documented).as("types listed in %s", PublicTypes.API_DOC).isNotEmpty();
    assertThat(PublicTypes.publicTopLevelIn(PublicTypes.MAIN_CLASSES, getClass().getClassLoader()))
        .as(
            "public top-level types of the starter's main classes (compare with %s)",
            PublicTypes.API_DOC)
        .containsExactlyInAnyOrderElementsOf(documented);
  }
}
