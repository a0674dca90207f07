-- INCREMENT BY matches the entity's allocationSize: Hibernate hands out 50 ids per nextval.
CREATE SEQUENCE shipment_id_seq INCREMENT BY 50;

CREATE TABLE shipment (
    id       bigint PRIMARY KEY,
    order_id text NOT NULL UNIQUE,
    quantity integer NOT NULL CHECK (quantity > 0)
);
