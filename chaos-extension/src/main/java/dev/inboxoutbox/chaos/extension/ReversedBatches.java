package dev.inboxoutbox.chaos.extension;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.listener.BatchInterceptor;

/**
 * The ordering negative control: hands each batch to the listener with every partition's records
 * last first, as a consumer that does not keep partition order would apply them. A CancelOrder
 * right behind its PlaceOrder then finds no order, and the chaos verifier must fail. Offsets are
 * committed from the batch as polled (the container acknowledges the polled records), so nothing is
 * skipped.
 */
final class ReversedBatches implements BatchInterceptor<Object, Object> {

  @Override
  public ConsumerRecords<Object, Object> intercept(
      ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
    Map<TopicPartition, List<ConsumerRecord<Object, Object>>> reversed = new LinkedHashMap<>();
    for (TopicPartition partition : records.partitions()) {
      List<ConsumerRecord<Object, Object>> inPartition =
          new ArrayList<>(records.records(partition));
      Collections.reverse(inPartition);
      reversed.put(partition, inPartition);
    }
    return new ConsumerRecords<>(reversed, records.nextOffsets());
  }
}
