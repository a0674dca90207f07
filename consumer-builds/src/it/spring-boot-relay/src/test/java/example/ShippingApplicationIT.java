package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The application on the dev stack: a command consumed once, its event relayed to Kafka. */
@SpringBootTest(properties = "inbox-outbox.relay.enabled=true")
class ShippingApplicationIT {

  @Autowired JdbcClient jdbc;

  @Test
  void aCommandsEventIsRelayed() {
    assertThat(jdbc.sql("SHOW server_version").query(String.class).single())
        .as("the dev stack's PostgreSQL")
        .startsWith("17.");
    TopicWriter.sendOne(
        RecordBuilder.to("shipments.commands")
            .key("s-1")
            .idempotencyKey("k-1")
            .json("{\"parcel\":1}")
            .build());

    List<ConsumerRecord<String, byte[]>> relayed;
    try (TopicReader reader = new TopicReader("outbox.event.shipment")) {
      relayed = reader.readUntil(records -> !records.isEmpty(), Duration.ofSeconds(90));
    }
    assertThat(relayed.get(0).key()).isEqualTo("s-1");
    assertThat(TopicReader.value(relayed.get(0))).isEqualTo("{\"parcel\": 1}");
  }
}
