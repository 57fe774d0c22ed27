-- Last: who may run what in schema api. Functions are executable by PUBLIC by
-- default; that is taken back, and the web role may call the entry points
-- (names without a leading underscore) and read every api view, nothing else.
-- The helpers (names starting with an underscore, sql/21_format.sql to
-- sql/26_events.sql) stay callable only from inside the entry points.
--
-- Every entry point runs with its owner's rights and a pinned search_path,
-- stated here once rather than in each file: the web role reads no table
-- itself, a caller's search_path cannot redirect a name inside, and an entry
-- point added later cannot be left out. The helpers run inside the entry
-- points, under the same user and search_path, and so stay inlinable where
-- they are SQL.
revoke execute on all functions in schema api from public;
grant select on all tables in schema api to pricing_web;
do $$
declare
    f regprocedure;
begin
    for f in
        select p.oid::regprocedure
        from pg_proc as p
        where p.pronamespace = 'api'::regnamespace and p.proname not like '\_%'
    loop
        execute format('alter function %s security definer set search_path = pricing, pg_temp', f);
        execute format('grant execute on function %s to pricing_web', f);
    end loop;
end
$$;
-- Functions are executable by PUBLIC by default; schema `keys` is the owner's
-- alone (the web role lacks USAGE on it as well).
revoke all on all functions in schema keys from public;
