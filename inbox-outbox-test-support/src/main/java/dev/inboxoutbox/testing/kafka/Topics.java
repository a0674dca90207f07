package dev.inboxoutbox.testing.kafka;

import dev.inboxoutbox.devstack.DevStack;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;

/** Topic and group administration on the shared dev-stack broker, each call finished on return. */
public final class Topics {

  private static final long ADMIN_SECONDS = 30;

  private Topics() {}

  /** Creates {@code topic} with its own settings (e.g. {@code max.message.bytes}). */
  public static void create(String topic, int partitions, Map<String, String> configs)
      throws InterruptedException, ExecutionException, TimeoutException {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
          .all()
          .get(ADMIN_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** Sets one setting of an existing topic. */
  public static void set(String topic, String name, String value)
      throws InterruptedException, ExecutionException, TimeoutException {
    try (Admin admin = admin()) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, topic),
                  List.of(
                      new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET))))
          .all()
          .get(ADMIN_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** The partition assignor a consumer group agreed on. */
  public static String assignorOf(String group)
      throws InterruptedException, ExecutionException, TimeoutException {
    try (Admin admin = admin()) {
      return admin
          .describeConsumerGroups(List.of(group))
          .all()
          .get(ADMIN_SECONDS, TimeUnit.SECONDS)
          .get(group)
          .partitionAssignor();
    }
  }

  private static Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers()));
  }
}
