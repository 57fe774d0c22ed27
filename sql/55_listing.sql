-- publish.refresh_listing(publish): rebuilds pricing.model_listing (the rows
-- behind GET /api/v1/models, see migrations/V2__listing.sql) for the prices in
-- effect on the publish's UTC day. publish.apply() calls it as its last step,
-- inside the publish transaction, so the listing changes with the data it
-- lists (also pricing.model_listing_item and pricing.model_search). Returns
-- the number of listing rows written.
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
    delete from pricing.model_search;
    delete from pricing.model_listing_item;
    delete from pricing.model_listing;
    create temp table listing_rows on commit drop as
    select * from api._listing_rows((v_as_of at time zone 'UTC')::date, v_as_of);
    insert into pricing.model_listing (
        scope, model_id, channel, provider, status, modality, input_modalities, kind, context_window,
        input_usd, output_usd, blended_usd, k_input, k_output, k_blended, k_context, k_updated
    )
    select r.scope, r.model_id, r.channel, r.provider, r.status, r.modality, r.input_modalities,
           r.kind, r.context_window, r.input_usd, r.output_usd, r.blended_usd, r.k_input, r.k_output,
           r.k_blended, r.k_context, r.k_updated
    from listing_rows as r;
    get diagnostics v_rows = row_count;
    insert into pricing.model_listing_item (scope, model_id, item)
    select r.scope, r.model_id, r.item from listing_rows as r;
    drop table listing_rows;
    insert into pricing.model_search (model_id, search)
    select m.id, api._search_text(m.id) from pricing.models as m;
    analyze pricing.model_listing;
    return v_rows;
end
$$;

-- publish.refresh_dump(publish): stores the CSV of GET /dumps/prices.csv for
-- the publish (api._price_dump_csv, sql/37_price_dump.sql), in place of the
-- previous one. publish.apply() calls it inside the publish transaction.
create function publish.refresh_dump(p_publish bigint)
returns void
language sql
as $$
    delete from pricing.price_dump;
    insert into pricing.price_dump (publish, csv)
    select p.id, api._price_dump_csv((p.as_of at time zone 'UTC')::date, p.as_of)
    from pricing.publishes as p
    where p.id = p_publish;
$$;

-- The listing and the dump follow the served publish also when sql/ itself
-- changes (a new build of either), so they are rebuilt whenever this schema is.
select publish.refresh_listing(s.id), publish.refresh_dump(s.id)
from api._served(false) as s;
