-- api.price_dump(): GET /dumps/prices.csv. Every price row in effect on the
-- served publish's day: one row per model, channel, component and tier, with
-- canonical model ids and prices as exact decimal text.
-- Ordering: model_id, channel, component, tier. Errors: none.
create function api.price_dump()
returns table (
    model_id text, provider text, model_name text, channel text, component text, tier text,
    usd_per_1m_tokens text, valid_from date, valid_to date, last_verified_at text,
    is_stale boolean, source text
)
language sql stable security definer
set search_path = pricing, pg_temp
as $$
    select p.model_id, m.provider, m.name, p.channel::text, p.component::text, p.tier::text,
           api._dec(p.usd_per_1m), p.valid_from, p.valid_to, api._ts(p.last_verified_at),
           api._is_stale(p.last_verified_at, s.as_of), p.source
    from api._served() as s
    join pricing.prices as p
      on p.valid_from <= s.day and (p.valid_to is null or p.valid_to > s.day)
    join pricing.models as m on m.id = p.model_id
    order by p.model_id, p.channel, p.component, p.tier
$$;

-- api.served_publish(): the publish being served (id, as_of), for ETags and
-- the feeds' dates. No row before the first publish.
create function api.served_publish()
returns table (id bigint, as_of timestamptz)
language sql stable security definer
set search_path = pricing, pg_temp
as $$
    select s.id, s.as_of from api._served() as s
$$;
