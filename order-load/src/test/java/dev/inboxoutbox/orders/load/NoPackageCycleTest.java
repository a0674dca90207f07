package dev.inboxoutbox.orders.load;

import dev.inboxoutbox.testing.api.PackageCycles;
import org.junit.jupiter.api.Test;

class NoPackageCycleTest {

  @Test
  void noPackageOfTheModuleDependsOnItselfThroughOthers() {
    PackageCycles.assertNoneInTheModule();
  }
}
