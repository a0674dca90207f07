package dev.inboxoutbox.orders.load;

import picocli.CommandLine.Option;

/**
 * What share of the load repeats, conflicts, is malformed or is cancelled: the same for chaos and
 * produce.
 */
public final class LoadShares {

  @Option(
      names = "--retry-share",
      paramLabel = "SHARE",
      defaultValue = "0.1",
      description =
          "Share of orders sent again with the same key and order, as a client retry, 0 to 1 (default ${DEFAULT-VALUE}).")
  public double retryShare;

  @Option(
      names = "--conflict-share",
      paramLabel = "SHARE",
      defaultValue = "0.02",
      description =
          "Share of orders whose key is reused for a different order, 0 to 1 (default ${DEFAULT-VALUE}).")
  public double conflictShare;

  @Option(
      names = "--malformed-share",
      paramLabel = "SHARE",
      defaultValue = "0.01",
      description =
          "Share of orders followed by a record that is not valid JSON, 0 to 1 (default ${DEFAULT-VALUE}).")
  public double malformedShare;

  @Option(
      names = "--cancel-share",
      paramLabel = "SHARE",
      defaultValue = "0.05",
      description =
          "Share of orders followed by a CancelOrder naming their key in their partition: half right behind them, the rest up to a second later while their payment is charged (iox chaos holds half of those until the provider has charged the order), 0 to 1 (default ${DEFAULT-VALUE}).")
  public double cancelShare;
}
