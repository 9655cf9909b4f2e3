-- The sink's least-privilege role on the target: no superuser, no CREATE on the database. It owns the tables it
-- applies to (owning them lets structured schema evolution ALTER them) and its own schema trellara_sink, and
-- may use nothing else. Run as an administrator after the application schema exists.
CREATE ROLE applier LOGIN PASSWORD 'applier-secret' NOSUPERUSER NOCREATEDB NOCREATEROLE;
GRANT CONNECT ON DATABASE shop TO applier;
GRANT USAGE ON SCHEMA public TO applier;
ALTER TABLE public.orders OWNER TO applier;
ALTER TABLE public.order_line OWNER TO applier;
ALTER TABLE public.payment OWNER TO applier;
CREATE SCHEMA IF NOT EXISTS trellara_sink AUTHORIZATION applier;
