-- A cancelled order's payment: called off before any money was taken (CANCELLED), or refunded
-- (REFUND_REQUESTED -> REFUNDED). refund_id is the provider's refund, set once the refund is made;
-- the provider's idempotency key for it is refund-<payment_id>.
ALTER TABLE payments ADD COLUMN refund_id text;

ALTER TABLE payments DROP CONSTRAINT payments_status_known;
ALTER TABLE payments ADD CONSTRAINT payments_status_known CHECK (status IN (
    'REQUESTED', 'CHARGE_REQUESTED', 'CAPTURED', 'FAILED', 'CANCELLED', 'REFUND_REQUESTED', 'REFUNDED'));

-- A payment cancelled before the charge was sent has no charge; every other state past REQUESTED
-- names one, and a refund needs the charge it gives back.
ALTER TABLE payments DROP CONSTRAINT payments_charged_has_charge;
ALTER TABLE payments ADD CONSTRAINT payments_charged_has_charge
    CHECK (status IN ('REQUESTED', 'CANCELLED') OR charge_id IS NOT NULL);
ALTER TABLE payments ADD CONSTRAINT payments_refunded_has_refund
    CHECK (status <> 'REFUNDED' OR refund_id IS NOT NULL);

CREATE UNIQUE INDEX payments_refund_id_key ON payments (refund_id) WHERE refund_id IS NOT NULL;
