-- The tables of SpringApplicationKitIT's handlers. No unique constraint on purpose: only the inbox
-- may stop a second effect.
CREATE TABLE IF NOT EXISTS kit_order (id bigserial PRIMARY KEY, order_key text NOT NULL);
CREATE TABLE IF NOT EXISTS kit_audit (id bigserial PRIMARY KEY, order_key text NOT NULL);
