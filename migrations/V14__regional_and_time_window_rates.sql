-- Two more conditions of a conditional rate (pricing.conditional_prices):
-- region, where the rate applies as the channel names it (a Bedrock data
-- zone such as `eu`, an in-region endpoint such as `eu-west-1`, `regional`
-- for Vertex AI's regional endpoints); null is the channel's default region,
-- the one of pricing.prices. time_window, the UTC hours of the week the rate
-- applies in: {"name": "peak" | "off_peak", "spans": [{"weekdays": [1..7],
-- "from": "HH:MM", "to": "HH:MM"}, ...]}; the snapshot reader checks the
-- spans in full (server/src/publish/snapshot.rs), the checks here keep the
-- shape the read side relies on.
alter table pricing.conditional_prices
    add column region text check (region ~ '^[a-z][a-z0-9-]{1,24}$'),
    add column time_window jsonb check (
        jsonb_typeof(time_window) = 'object'
        and time_window ->> 'name' in ('peak', 'off_peak')
        and jsonb_typeof(time_window -> 'spans') = 'array'
        and jsonb_array_length(time_window -> 'spans') > 0
    );

-- A row whose only condition is a region or a time window is conditional too;
-- the series' uniqueness takes both. The constraints being replaced were named
-- by PostgreSQL, so they are found by what they check.
do $$
declare
    v_name text;
begin
    for v_name in
        select conname from pg_constraint
        where conrelid = 'pricing.conditional_prices'::regclass
          and (contype = 'u'
               or (contype = 'c' and pg_get_constraintdef(oid) like '%above_input_tokens IS NOT NULL%'))
    loop
        execute format('alter table pricing.conditional_prices drop constraint %I', v_name);
    end loop;
end
$$;

alter table pricing.conditional_prices
    add constraint conditional_prices_has_condition check (
        above_input_tokens is not null or component = 'cache_write'
        or region is not null or time_window is not null
    ),
    add constraint conditional_prices_series_from_key unique nulls not distinct (
        model_id, channel, component, tier, above_input_tokens, cache_ttl, region, time_window,
        valid_from
    );

-- A conditional rate's price event names all four conditions.
update pricing.events
set condition = condition || '{"region": null, "time_window": null}'::jsonb
where condition is not null;

-- The stored dump predates its region and time_window columns; the dump is
-- computed from the rows until the next publish stores it again.
delete from pricing.price_dump;
