package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.PoisonMessageException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** A PlaceOrder command as sent, checked field by field; what cannot be stored is refused. */
record PlaceOrder(String customerId, List<Line> lines) {

  /** One item: a quantity of a SKU at a unit price in cents. */
  record Line(String sku, int qty, long unitPriceCents) {}

  /** Throws {@link PoisonMessageException} naming the first field that is missing or wrong. */
  static PlaceOrder parse(JsonNode command) {
    String customerId = CommandFields.text(command, "customerId");
    JsonNode items = command.get("items");
    if (items == null || !items.isArray() || items.isEmpty()) {
      throw PoisonMessageException.malformed("PlaceOrder needs a non-empty items array");
    }
    List<Line> lines = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      String field = "items[" + i + "].";
      String sku = CommandFields.text(item, "sku", field + "sku");
      long qty = CommandFields.wholeNumber(item, "qty", field + "qty", 1, Integer.MAX_VALUE);
      long unitPriceCents =
          CommandFields.wholeNumber(
              item, "unitPriceCents", field + "unitPriceCents", 0, Long.MAX_VALUE);
      lines.add(new Line(sku, (int) qty, unitPriceCents));
    }
    return new PlaceOrder(customerId, List.copyOf(lines));
  }
}
