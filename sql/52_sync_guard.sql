-- publish.served_prices(day): the standard price rows in effect on `day`.
-- `pricing sync` compares them before and after a publish, inside its
-- transaction, to refuse one that takes away or moves too much
-- (server/src/publish/mod.rs, check_guard).
create function publish.served_prices(p_day date)
returns table (model_id text, channel pricing.channel, component pricing.component,
               tier pricing.service_tier, usd_per_1m numeric)
language sql stable
as $$
    select p.model_id, p.channel, p.component, p.tier, p.usd_per_1m
    from pricing.prices as p
    where p.valid_from <= p_day and (p.valid_to is null or p.valid_to > p_day)
$$;
