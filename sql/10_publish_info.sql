-- api.current_publish(): the publish being served.
-- Returns one row (id, as_of), or no row while nothing has been published.
create function api.current_publish()
returns table (id bigint, as_of timestamptz)
language sql stable
as $$
    select p.id, p.as_of
    from pricing.publishes as p
    order by p.id desc
    limit 1
$$;
