package dev.inboxoutbox.chaos.extension;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.relay.PublishedEvent;
import dev.inboxoutbox.relay.RelayListener;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** The crash points, at the moments the consumer and the relay report. */
final class CrashHooks implements BatchProcessor.Hooks, RelayListener {

  private final CrashInjector injector;

  CrashHooks(CrashInjector injector) {
    this.injector = injector;
  }

  @Override
  public void handlerReturned(IncomingMessage message) {
    injector.at(CrashPoint.MID_HANDLER);
  }

  @Override
  public void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {
    injector.at(CrashPoint.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT);
  }

  @Override
  public void published(List<PublishedEvent> events) {
    injector.at(CrashPoint.RELAY_AFTER_PUBLISH);
  }
}
