package dev.inboxoutbox.chaos.extension;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.springframework.kafka.listener.BatchInterceptor;

/**
 * The refund negative control: every {@code RefundRequested} is taken out of its batch before the
 * listener sees it, as a refunder that loses its requests would, while the container still commits
 * the batch as polled. Cancelled orders whose charge was captured then keep the money, and the
 * chaos verifier must fail.
 */
final class DroppedRefundRequests implements BatchInterceptor<Object, Object> {

  static final String REFUND_REQUESTED = "RefundRequested";

  @Override
  public ConsumerRecords<Object, Object> intercept(
      ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
    Map<TopicPartition, List<ConsumerRecord<Object, Object>>> kept = new LinkedHashMap<>();
    for (TopicPartition partition : records.partitions()) {
      kept.put(
          partition,
          records.records(partition).stream().filter(record -> !isRefundRequest(record)).toList());
    }
    return new ConsumerRecords<>(kept, records.nextOffsets());
  }

  private static boolean isRefundRequest(ConsumerRecord<Object, Object> record) {
    Header type = record.headers().lastHeader("type");
    return type != null
        && REFUND_REQUESTED.equals(new String(type.value(), StandardCharsets.UTF_8));
  }
}
