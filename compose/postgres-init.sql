-- Roles and databases for docker-compose. Each service owns its database (and so its tables and
-- the migration-created publication); the relay connects as a separate REPLICATION role with only
-- the rights it needs.
CREATE ROLE orders_app LOGIN PASSWORD 'orders_app';
CREATE ROLE payments_app LOGIN PASSWORD 'payments_app';
CREATE ROLE iox_relay LOGIN REPLICATION PASSWORD 'iox_relay';

CREATE DATABASE orders OWNER orders_app;
CREATE DATABASE payments OWNER payments_app;

\connect orders
-- Tables are created later by the service's migrations; default privileges reach them then.
-- (The relay needs SELECT on outbox, UPDATE of published_at, SELECT, INSERT, DELETE on its
-- offsets table iox_relay_offsets and its heartbeat table iox_relay_heartbeat; a DBA can narrow
-- these to exactly that once the tables exist, see README "Least privilege".)
ALTER DEFAULT PRIVILEGES FOR ROLE orders_app IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO iox_relay;
GRANT USAGE ON SCHEMA public TO iox_relay;

\connect payments
ALTER DEFAULT PRIVILEGES FOR ROLE payments_app IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO iox_relay;
GRANT USAGE ON SCHEMA public TO iox_relay;
