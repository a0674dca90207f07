package dev.inboxoutbox.testing.api;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.inboxoutbox.testing.api.planted.a.Order;
import dev.inboxoutbox.testing.api.planted.b.Payment;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {

  @Test
  void aPlantedCycleFailsNamingBothPackages() {
    assertThatThrownBy(
            () ->
                PackageCycles.assertNoneIn(
                    new ClassFileImporter().importClasses(Order.class, Payment.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("planted.a")
        .hasMessageContaining("planted.b");
  }

  @Test
  void oneSideOfItAlonePasses() {
    assertThatCode(
            () -> PackageCycles.assertNoneIn(new ClassFileImporter().importClasses(Payment.class)))
        .doesNotThrowAnyException();
  }

  @Test
  void thisModuleHasNone() {
    PackageCycles.assertNoneInTheModule();
  }
}
