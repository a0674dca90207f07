package example;

import static dev.inboxoutbox.test.ExactlyOnceAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.BatchProcessor.Hooks;
import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import dev.inboxoutbox.test.ExactlyOnceKit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The test kit's duplicate delivery on an application's handler, on the dev stack. */
class BookShipmentHandlerIT {

  private final DevStack stack = DevStack.shared();
  private final Map<String, Object> kafka =
      Map.of("bootstrap.servers", stack.kafka().bootstrapServers());

  @Test
  void aShipmentIsBookedOncePerKeyWhenDeliveredTwice() throws Exception {
    try (Database db = stack.postgres().createDatabase()) {
      DataSource dataSource = db.dataSource();
      InboxOutboxSchema.migrate(dataSource);
      try (Connection connection = dataSource.getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE shipments (shipment_id text NOT NULL)");
        try (ResultSet version = statement.executeQuery("SHOW server_version")) {
          version.next();
          assertThat(version.getString(1)).as("the dev stack's PostgreSQL").startsWith("17.");
        }
      }

      try (ExactlyOnceKit kit =
          ExactlyOnceKit.forConsumer(hooks -> consumer(dataSource, hooks))
              .kafka(kafka)
              .topic("shipments")
              .payload(key -> "{\"shipmentId\":\"" + key + "\"}")
              .effects(key -> bookings(dataSource, key))
              .build()) {
        assertThat(kit).survivesDuplicateDelivery();
      }
    }
  }

  /** The application's consumer, unstarted, with the kit's hooks on its processing. */
  private IdempotentConsumer consumer(DataSource dataSource, Hooks hooks) {
    ConsumerSettings settings =
        ConsumerSettings.builder("shipments")
            .retryBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
            .build();
    return IdempotentConsumer.builder(
            BatchProcessor.builder(settings)
                .dataSource(dataSource)
                .handler(BookShipmentHandlerIT::bookShipment)
                .hooks(hooks))
        .kafka(kafka)
        .topics("shipments")
        .build();
  }

  /** The handler under test: one shipment row per command, in the claim's transaction. */
  private static Outcome bookShipment(IncomingMessage message, HandlerContext context)
      throws SQLException {
    try (PreparedStatement insert =
        context.connection().prepareStatement("INSERT INTO shipments (shipment_id) VALUES (?)")) {
      insert.setString(1, message.payload().get("shipmentId").asString());
      insert.executeUpdate();
    }
    return Outcome.success();
  }

  private static long bookings(DataSource dataSource, String shipmentId) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query =
            connection.prepareStatement("SELECT count(*) FROM shipments WHERE shipment_id = ?")) {
      query.setString(1, shipmentId);
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return row.getLong(1);
      }
    }
  }
}
