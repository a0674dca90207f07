package dev.inboxoutbox.chaos;

import java.nio.file.Path;
import java.time.Duration;

/** Everything a chaos run is parameterised by; printed into its report. */
record ChaosOptions(
    long seed,
    int orders,
    int ratePerSecond,
    int orderInstances,
    int paymentInstances,
    Duration killIntervalMin,
    Duration killIntervalMax,
    int minKills,
    Duration restartDelay,
    double crashPointProbability,
    boolean dedup,
    double retryShare,
    double conflictShare,
    double malformedShare,
    double webhookDuplicateShare,
    Duration quiescenceTimeout,
    Path repoRoot,
    Path reportDirectory) {}
