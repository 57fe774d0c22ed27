-- Last: the web role may call every public api function and read every api
-- view. Functions are executable by PUBLIC by default; take that back first,
-- so that the helpers (names starting with an underscore, sql/21_format.sql
-- to sql/26_events.sql) stay callable only from inside the api functions,
-- which run with the owner's rights.
revoke execute on all functions in schema api from public;
grant execute on all functions in schema api to pricing_web;
grant select on all tables in schema api to pricing_web;
do $$
declare
    f regprocedure;
begin
    for f in
        select p.oid::regprocedure
        from pg_proc as p
        where p.pronamespace = 'api'::regnamespace and p.proname like '\_%'
    loop
        execute format('revoke execute on function %s from pricing_web', f);
    end loop;
end
$$;
-- Functions are executable by PUBLIC by default; schema `keys` is the owner's
-- alone (the web role lacks USAGE on it as well).
revoke all on all functions in schema keys from public;
