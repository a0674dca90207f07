package dev.inboxoutbox.provider;

import java.net.URI;
import java.time.Duration;

/**
 * The settings a simulator was built with, fixed at {@link
 * PaymentProviderSimulator.Builder#build()} so that reusing the builder cannot change a running
 * simulator.
 */
record ProviderSettings(
    String host,
    int port,
    String webhookSecret,
    URI webhookUrl,
    double duplicateShare,
    double failureShare,
    Duration delayMin,
    Duration delayMax,
    Duration retryMin,
    Duration retryMax,
    int webhookThreads,
    int requestThreads,
    long seed) {}
