-- One row per payment, moved through REQUESTED -> CHARGE_REQUESTED -> CAPTURED | FAILED by the
-- consumers. Every update names the version it read (optimistic locking), so two consumers that
-- race on one payment never both apply a transition.
CREATE TABLE payments (
    payment_id     text        PRIMARY KEY,
    order_id       text        NOT NULL,
    customer_id    text        NOT NULL,
    amount_cents   bigint      NOT NULL,
    currency       text        NOT NULL,
    status         text        NOT NULL,
    charge_id      text,
    failure_reason text,
    version        integer     NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT payments_amount_positive CHECK (amount_cents > 0),
    CONSTRAINT payments_currency_iso CHECK (currency ~ '^[A-Z]{3}$'),
    CONSTRAINT payments_status_known CHECK (status IN ('REQUESTED', 'CHARGE_REQUESTED', 'CAPTURED', 'FAILED')),
    CONSTRAINT payments_charged_has_charge CHECK (status = 'REQUESTED' OR charge_id IS NOT NULL)
);

-- One payment per order (payment id = "pay-" + order id); the index makes it a rule, not a habit.
CREATE UNIQUE INDEX payments_order_id_key ON payments (order_id);

-- Webhooks name the charge; one charge never pays two payments.
CREATE UNIQUE INDEX payments_charge_id_key ON payments (charge_id) WHERE charge_id IS NOT NULL;

COMMENT ON TABLE payments IS 'Payments of orders, charged at the provider with idempotency key charge-<payment_id>';
COMMENT ON COLUMN payments.version IS 'Incremented by every update; updates name the version they read';
