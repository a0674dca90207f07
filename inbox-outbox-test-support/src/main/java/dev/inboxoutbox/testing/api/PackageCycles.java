package dev.inboxoutbox.testing.api;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;

/**
 * No package of a module depends, through others, on itself: each module's test calls {@link
 * #assertNoneIn(Path)} on its main classes, so a newcomer can read a module's packages in one
 * order, leaves first.
 */
public final class PackageCycles {

  private PackageCycles() {}

  /** Fails, naming the cycles, when the classes under {@code classes} form a package cycle. */
  public static void assertNoneIn(Path classes) {
    assertNoneIn(new ClassFileImporter().importPath(classes));
  }

  /** The same for classes already imported (the helper's own test plants a cycle). */
  public static void assertNoneIn(JavaClasses classes) {
    slices()
        .matching("dev.inboxoutbox.(**)")
        .should()
        .beFreeOfCycles()
        .allowEmptyShould(true)
        .check(classes);
  }

  /** A module's main classes, seen from its directory (where Surefire runs its tests). */
  public static void assertNoneInTheModule() {
    assertNoneIn(PublicTypes.MAIN_CLASSES);
  }
}
