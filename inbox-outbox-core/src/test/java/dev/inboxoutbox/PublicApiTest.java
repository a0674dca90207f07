package dev.inboxoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.testing.api.PublicTypes;
import org.junit.jupiter.api.Test;

/**
 * Core's public API is what docs/api.md lists: a public top-level type added without documenting it
 * (or documented without existing) fails the build. Nested types belong to their owner's entry.
 */
class PublicApiTest {

  private static final String SECTION = "## Public types of inbox-outbox-core";
  private static final int MOST_PUBLIC_TYPES = 22;

  @Test
  void thePublicTopLevelTypesAreExactlyTheOnesDocsApiMdLists() {
    PublicTypes.assertExactlyTheDocumentedOnes(SECTION, "core", getClass().getClassLoader());
  }

  @Test
  void coreHasAtMostTwentyTwoPublicTopLevelTypes() {
    assertThat(PublicTypes.publicTopLevelIn(PublicTypes.MAIN_CLASSES, getClass().getClassLoader()))
        .as("public top-level types of core's main classes")
        .isNotEmpty()
        .hasSizeLessThanOrEqualTo(MOST_PUBLIC_TYPES);
  }
}
