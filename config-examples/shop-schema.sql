-- The demo schema the examples capture (public.orders, public.order_line, public.payment).
-- Run it on the source AND on the target: the initial schema is not replicated (later column changes of these
-- tables are, by the sink's structured schema evolution). docker/docker-compose.yml runs it on both databases
-- and then docker/target-applier-role.sql, which gives the tables to the sink's least-privilege role.
CREATE TABLE IF NOT EXISTS orders (
    id          bigint PRIMARY KEY,
    customer_id bigint NOT NULL,
    status      text NOT NULL,
    total       numeric(12, 2) NOT NULL,
    placed_at   timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS order_line (
    order_id bigint NOT NULL,
    line_no  int NOT NULL,
    sku      text NOT NULL,
    qty      int NOT NULL,
    price    numeric(12, 2) NOT NULL,
    PRIMARY KEY (order_id, line_no)
);
CREATE TABLE IF NOT EXISTS payment (
    id       bigint PRIMARY KEY,
    order_id bigint NOT NULL,
    amount   numeric(12, 2) NOT NULL,
    paid_at  timestamptz NOT NULL DEFAULT now()
);
