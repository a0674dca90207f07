package dev.inboxoutbox.provider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A simulator of its own for each test of its HTTP API, on a free port, and a client for it. */
abstract class SimulatorApiTestBase {

  PaymentProviderSimulator provider;
  ApiClient api;

  @BeforeEach
  void startSimulator() {
    provider =
        PaymentProviderSimulator.builder().port(0).webhookSecret("whsec_test").build().start();
    api = new ApiClient(provider);
  }

  @AfterEach
  void stopSimulator() {
    provider.close();
  }
}
