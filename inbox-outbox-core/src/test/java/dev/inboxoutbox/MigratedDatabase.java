package dev.inboxoutbox;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.schema.InboxOutboxSchema;

/** A fresh database on the shared dev stack with the framework's schema applied. */
public final class MigratedDatabase {

  private MigratedDatabase() {}

  public static Database create() {
    Database database = DevStack.shared().postgres().createDatabase();
    InboxOutboxSchema.migrate(database.dataSource());
    return database;
  }
}
