-- api.health(): readiness probe. Always one row: as_of is the time of the last
-- publish, or null before the first one. Touches no table beyond publishes.
create function api.health()
returns table (as_of timestamptz)
language sql stable
as $$
    select (select s.as_of from api._served(false) as s)
$$;
