-- api._served(required): the publish being served, the one place that says
-- which it is. Every reader of "the current publish" goes through it: the
-- endpoints (required: no publish raises PRNOD, 503 SERVICE_UNAVAILABLE),
-- health, the webhook subscriptions and deliveries (sql/39, sql/65),
-- publish.apply and the listing and dump rebuild (sql/50, sql/55), and the
-- server (server/src/publish/mod.rs `served`: the first start's bundled
-- publish, `pricing sync`'s nothing-changed check, the response cache's
-- listener). It is the newest publish: publish.apply refuses a publish time
-- that is not after the last one, so the highest id has the latest as_of.
-- One row: id, as_of, its UTC day (the day whose prices are "current") and
-- the published snapshot's sha256; no row when nothing has been published
-- and p_required is false.
create function api._served(p_required boolean default true)
returns table (id bigint, as_of timestamptz, day date, snapshot_sha256 text)
language plpgsql stable
as $$
begin
    return query
    select p.id, p.as_of, (p.as_of at time zone 'UTC')::date, p.snapshot_sha256
    from pricing.publishes as p
    order by p.id desc
    limit 1;
    if not found and p_required then
        raise exception using
            errcode = 'PRNOD',
            message = 'no pricing data has been published yet',
            hint = 'retry later; the operator publishes data with `pricing publish`';
    end if;
end
$$;
