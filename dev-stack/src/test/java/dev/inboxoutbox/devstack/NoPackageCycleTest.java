package dev.inboxoutbox.devstack;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The rule of {@code PackageCycles} in inbox-outbox-test-support, which depends on this module and
 * so cannot be this module's test dependency.
 */
class NoPackageCycleTest {

  @Test
  void noPackageOfTheModuleDependsOnItselfThroughOthers() {
    slices()
        .matching("dev.inboxoutbox.(**)")
        .should()
        .beFreeOfCycles()
        .allowEmptyShould(true)
        .check(new ClassFileImporter().importPath(Path.of("target", "classes")));
  }
}
