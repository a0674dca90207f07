package dev.inboxoutbox.spring;

import dev.inboxoutbox.testing.api.PublicTypes;
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
    PublicTypes.assertExactlyTheDocumentedOnes(SECTION, "the starter", getClass().getClassLoader());
  }
}
