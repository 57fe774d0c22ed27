-- api.price_dump(): GET /dumps/prices.csv. Returns one row (publish, as_of,
-- csv): the CSV text (RFC 4180, header row, CRLF line ends) of every rate in
-- effect on the served publish's day: one line per model, channel, component,
-- tier and condition (above_input_tokens, cache_ttl, region, time_window: all
-- empty on a standard price row; time_window in its text form,
-- api._window_text), with canonical model ids and prices as exact decimals in
-- USD per 1M tokens; promotional (true/false) and promotion_until (the last
-- day of a promotional price where the provider names one, else empty); kind,
-- what the model is for (chat, embedding, ...; empty where unknown).
-- Ordering: model_id, channel, component, tier (the spec's orders of channels
-- and components, cache_write last), then above_input_tokens, cache_ttl,
-- region and time_window's text, empty first. Errors: PRNOD nothing published
-- yet.
create function api._csv(p_value text)
returns text
language sql immutable
as $$
    select case
        when p_value is null then ''
        when p_value ~ '[",\r\n]' then '"' || replace(p_value, '"', '""') || '"'
        else p_value
    end
$$;

-- api._price_dump_csv(day, as_of): the dump's CSV for the prices in effect on
-- `day`, is_stale judged against `as_of`. publish.refresh_dump() stores it
-- for each publish.
create function api._price_dump_csv(p_day date, p_as_of timestamptz)
returns text
language sql stable
as $$
    select 'model_id,provider,model_name,channel,component,tier,usd_per_1m_tokens,valid_from,'
           || 'valid_to,last_verified_at,is_stale,source,above_input_tokens,cache_ttl,region,'
           || 'time_window,promotional,promotion_until,kind' || E'\r\n'
           || coalesce((
               select string_agg(concat_ws(',',
                          api._csv(p.model_id), api._csv(m.provider), api._csv(m.name),
                          p.channel, p.component, p.tier, api._dec(p.usd_per_1m), p.valid_from,
                          coalesce(p.valid_to::text, ''), api._ts(p.last_verified_at),
                          api._is_stale(p.last_verified_at, p_as_of)::text, api._csv(p.source),
                          coalesce(p.above_input_tokens::text, ''), coalesce(p.cache_ttl, ''),
                          coalesce(p.region, ''), api._csv(api._window_text(p.time_window)),
                          (p.promotion is not null)::text, coalesce(p.promotion ->> 'until', ''),
                          coalesce(m.kind::text, ''))
                          || E'\r\n',
                          '' order by p.model_id, p.channel, api._component_rank(p.component), p.tier,
                                      p.above_input_tokens nulls first, p.cache_ttl nulls first,
                                      p.region nulls first,
                                      api._window_text(p.time_window) nulls first)
               from api._rates(p_day, array(select x.id from pricing.models as x)) as p
               join pricing.models as m on m.id = p.model_id), '')
$$;

-- The stored CSV of the served publish; computed here only if it is missing.
create function api.price_dump()
returns table (publish bigint, as_of text, csv text)
language sql stable
as $$
    select s.id, api._ts(s.as_of),
           coalesce((select d.csv from pricing.price_dump as d where d.publish = s.id),
                    api._price_dump_csv(s.day, s.as_of))
    from api._served() as s
$$;
