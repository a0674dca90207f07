package dev.inboxoutbox.relay;

import java.util.List;

/**
 * Called on the relay's thread after Kafka acknowledged a batch and before its offsets are marked
 * processed. An exception thrown here fails the run exactly like a crash at that point: the batch
 * is published again after the restart (at-least-once; the consumers' inbox absorbs the repeats).
 */
@FunctionalInterface
public interface RelayListener {

  RelayListener NONE = events -> {};

  void published(List<PublishedEvent> events);
}
