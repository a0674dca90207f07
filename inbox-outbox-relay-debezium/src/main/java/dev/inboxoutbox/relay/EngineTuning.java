package dev.inboxoutbox.relay;

import java.time.Duration;

/**
 * How Debezium's engine batches and stores offsets; see the {@link RelaySettings.Builder} setters
 * of the same names.
 */
record EngineTuning(
    Duration offsetFlushInterval, Duration pollInterval, int maxBatchSize, int maxQueueSize) {

  EngineTuning {
    RelaySettings.wholeMillis(offsetFlushInterval, "offsetFlushInterval");
    RelaySettings.wholeMillis(pollInterval, "pollInterval");
    if (maxBatchSize < 1) {
      throw new IllegalArgumentException(
          "relay setting maxBatchSize must be at least 1, got: " + maxBatchSize);
    }
    if (maxQueueSize <= maxBatchSize) {
      // Debezium refuses the same at engine start, where the failure would only reach the
      // completion callback.
      throw new IllegalArgumentException(
          "relay setting maxQueueSize must be larger than maxBatchSize ("
              + maxBatchSize
              + "), got: "
              + maxQueueSize);
    }
  }
}
