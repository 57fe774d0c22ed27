-- publish.refresh_listing(publish): rebuilds pricing.model_listing (the rows
-- behind GET /api/v1/models, see migrations/V2__listing.sql) for the prices in
-- effect on the publish's UTC day. publish.apply() calls it as its last step,
-- inside the publish transaction, so the listing changes with the data it
-- lists. Returns the number of rows written.
create function publish.refresh_listing(p_publish bigint)
returns bigint
language plpgsql
as $$
declare
    v_as_of timestamptz;
    v_rows bigint;
begin
    select p.as_of into v_as_of from pricing.publishes as p where p.id = p_publish;
    if v_as_of is null then
        raise exception 'no publish %', p_publish;
    end if;
    delete from pricing.model_listing;
    insert into pricing.model_listing
    select * from api._listing_rows((v_as_of at time zone 'UTC')::date, v_as_of);
    get diagnostics v_rows = row_count;
    return v_rows;
end
$$;

-- The listing follows the served publish also when sql/ itself changes (a new
-- build of the listing rows), so it is rebuilt whenever this schema is.
select publish.refresh_listing(p.id)
from pricing.publishes as p
order by p.id desc
limit 1;
