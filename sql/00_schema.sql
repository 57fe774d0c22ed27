-- Schema `api`: the only surface the server's role (pricing_web) can reach.
-- Re-created from these files, in the order listed in server/src/store/db.rs, by
-- `pricing migrate` and at `serve` start whenever their hash changes.
create schema api;
grant usage on schema api to pricing_web;
