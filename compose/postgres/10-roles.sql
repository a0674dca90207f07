-- Roles and databases for docker-compose (run once, by the postgres image's entrypoint, on an empty
-- data directory). Each service owns its database, and so its tables and the publication its
-- migrations create; the relays connect as a separate REPLICATION role holding exactly the grants
-- of docs/relay-embedded.md "Least privilege". Passwords come from the container's environment
-- (.env, see .env.example).
\getenv orders_app_password ORDERS_APP_PASSWORD
\getenv payments_app_password PAYMENTS_APP_PASSWORD
\getenv iox_relay_password IOX_RELAY_PASSWORD

CREATE ROLE orders_app LOGIN PASSWORD :'orders_app_password';
CREATE ROLE payments_app LOGIN PASSWORD :'payments_app_password';
CREATE ROLE iox_relay LOGIN REPLICATION PASSWORD :'iox_relay_password';

CREATE DATABASE orders OWNER orders_app;
CREATE DATABASE payments OWNER payments_app;

\connect orders
\ir relay-grants.psql

\connect payments
\ir relay-grants.psql
