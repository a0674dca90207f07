package dev.inboxoutbox.tools;

import dev.inboxoutbox.testing.api.PackageCycles;
import org.junit.jupiter.api.Test;

class NoPackageCycleTest {

  @Test
  void noPackageOfTheModuleDependsOnItselfThroughOthers() {
    PackageCycles.assertNoneInTheModule();
  }
}
