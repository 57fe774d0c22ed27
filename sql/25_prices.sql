-- Prices: the price rows, reference channels, price summaries and listing
-- rows that the model, compare, estimate and listing functions serve. All in
-- exact numerics, written as decimal strings by api._dec.
-- Names start with an underscore: the web role may not call these helpers
-- (sql/99_grants.sql); the public api functions run them with the owner's
-- rights.

-- api._blended(input, output): (3 x input + output) / 4, exact; null when
-- either is missing.
create function api._blended(p_input numeric, p_output numeric)
returns numeric
language sql immutable
as $$
    select trim_scale((3 * p_input + p_output) / 4)
$$;

-- api._is_stale(last_verified_at, as_of): a price row is stale when it was last
-- verified more than 30 days before the served publish.
create function api._is_stale(p_verified timestamptz, p_as_of timestamptz)
returns boolean
language sql stable
as $$
    select p_verified < p_as_of - interval '30 days'
$$;

-- api._price_fields(...): the fields of a price row as served, standard or
-- conditional; `promotion` is {until, url} of a promotional price, else null.
create function api._price_fields(
    p_channel pricing.channel, p_component text, p_tier pricing.service_tier, p_usd numeric,
    p_valid_from date, p_valid_to date, p_verified timestamptz, p_source text,
    p_promotion jsonb, p_as_of timestamptz
)
returns jsonb
language sql stable
as $$
    select jsonb_build_object(
        'channel', p_channel,
        'component', p_component,
        'tier', p_tier,
        'usd_per_1m', api._dec(p_usd),
        'unit', 'usd_per_1m_tokens',
        'valid_from', p_valid_from,
        'valid_to', p_valid_to,
        'last_verified_at', api._ts(p_verified),
        'is_stale', api._is_stale(p_verified, p_as_of),
        'source', p_source,
        'promotion', p_promotion)
$$;

-- api._price_row(price, as_of): one price row as served.
create function api._price_row(p pricing.prices, p_as_of timestamptz)
returns jsonb
language sql stable
as $$
    select api._price_fields(p.channel, p.component::text, p.tier, p.usd_per_1m, p.valid_from,
                             p.valid_to, p.last_verified_at, p.source, p.promotion, p_as_of)
$$;

-- api._condition(above_input_tokens, cache_ttl, region, time_window): the
-- condition of a conditional rate as served, on its row and on its price
-- events; reprices_whole_request says that the threshold is on the whole
-- request (every token of a request over it is priced at this tier's rates).
create function api._condition(
    p_above_input_tokens integer, p_cache_ttl text, p_region text, p_time_window jsonb
)
returns jsonb
language sql immutable
as $$
    select jsonb_build_object(
        'above_input_tokens', p_above_input_tokens,
        'cache_ttl', p_cache_ttl,
        'region', p_region,
        'time_window', p_time_window,
        'reprices_whole_request', p_above_input_tokens is not null)
$$;

-- api._window_text(time_window): the compact text form of a time window, the
-- dump's column and the sort key of windowed rates: the name, then each span
-- as its ISO weekdays' digits and its UTC hours, e.g.
-- `peak 12345 01:00-04:00, 12345 06:00-10:00`; null for null.
create function api._window_text(p_window jsonb)
returns text
language sql immutable
as $$
    select (p_window ->> 'name') || ' ' || string_agg(
        (select string_agg(d, '' order by o)
         from jsonb_array_elements_text(s -> 'weekdays') with ordinality as w(d, o))
        || ' ' || (s ->> 'from') || '-' || (s ->> 'to'), ', ' order by i)
    from jsonb_array_elements(p_window -> 'spans') with ordinality as t(s, i)
$$;

-- api._conditional_price_row(price, as_of): one conditional rate as served:
-- the fields of a price row plus its condition.
create function api._conditional_price_row(c pricing.conditional_prices, p_as_of timestamptz)
returns jsonb
language sql stable
as $$
    select api._price_fields(c.channel, c.component, c.tier, c.usd_per_1m, c.valid_from,
                             c.valid_to, c.last_verified_at, c.source, c.promotion, p_as_of)
           || api._condition(c.above_input_tokens, c.cache_ttl, c.region, c.time_window)
$$;

-- api._component_rank(component): the spec's order of components, cache
-- writes last (conditional rates keep their component as text).
create function api._component_rank(p_component text)
returns integer
language sql immutable
as $$
    select array_position(array['input', 'output', 'cached_input', 'cache_write'], p_component)
$$;

-- api._rates(day, models): every rate of `models` in effect on `day` in one
-- shape: the standard price rows (no condition) and the conditional rates,
-- each with its promotion (null on a regular price).
-- Plain SQL so that it is inlined and reads the models' rows by index.
create function api._rates(p_day date, p_models text [])
returns table (
    model_id text, channel pricing.channel, component text, tier pricing.service_tier,
    above_input_tokens integer, cache_ttl text, region text, time_window jsonb,
    usd_per_1m numeric, valid_from date, valid_to date, last_verified_at timestamptz,
    source text, promotion jsonb
)
language sql stable
as $$
    select p.model_id, p.channel, p.component::text, p.tier, null::integer, null::text,
           null::text, null::jsonb, p.usd_per_1m, p.valid_from, p.valid_to, p.last_verified_at, p.source, p.promotion
    from pricing.prices as p
    where p.model_id = any (p_models)
      and p.valid_from <= p_day and (p.valid_to is null or p.valid_to > p_day)
    union all
    select c.model_id, c.channel, c.component, c.tier, c.above_input_tokens, c.cache_ttl,
           c.region, c.time_window, c.usd_per_1m, c.valid_from, c.valid_to, c.last_verified_at, c.source, c.promotion
    from pricing.conditional_prices as c
    where c.model_id = any (p_models)
      and c.valid_from <= p_day and (c.valid_to is null or c.valid_to > p_day)
$$;

-- api._channel_prices(day, models): per model of `models` and channel, the
-- standard-tier prices in effect on `day`, with the oldest last_verified_at of the three, and the
-- channel's rank as the model's reference channel (1 = the reference): the
-- official channel when it has both an input and an output price, else the
-- channel with the lowest blended price among those with both; a model priced
-- on no channel with both (an embedding or rerank model: input only) falls
-- back to official, then to the lowest input price, then to the spec's
-- channel order. Plain SQL (no SET, no SECURITY DEFINER) so that it is inlined, and
-- the models are a parameter so that a call for one model reads that model's
-- rows by index.
create function api._channel_prices(p_day date, p_models text [])
returns table (
    model_id text, channel pricing.channel, input_usd numeric, output_usd numeric,
    cached_input_usd numeric, blended_usd numeric, last_verified_at timestamptz, reference_rank bigint
)
language sql stable
as $$
    select c.model_id, c.channel, c.input_usd, c.output_usd, c.cached_input_usd, c.blended_usd,
           c.last_verified_at,
           row_number() over (
               partition by c.model_id
               order by (c.input_usd is not null and c.output_usd is not null) desc,
                        c.channel = 'official' desc, c.blended_usd asc nulls last,
                        c.input_usd asc nulls last, c.channel)
    from (
        select p.model_id, p.channel,
               max(p.usd_per_1m) filter (where p.component = 'input') as input_usd,
               max(p.usd_per_1m) filter (where p.component = 'output') as output_usd,
               max(p.usd_per_1m) filter (where p.component = 'cached_input') as cached_input_usd,
               api._blended(max(p.usd_per_1m) filter (where p.component = 'input'),
                            max(p.usd_per_1m) filter (where p.component = 'output')) as blended_usd,
               min(p.last_verified_at) as last_verified_at
        from pricing.prices as p
        where p.model_id = any (p_models)
          and p.tier = 'standard'
          and p.valid_from <= p_day and (p.valid_to is null or p.valid_to > p_day)
        group by p.model_id, p.channel
    ) as c
$$;

-- api._price_summary(...): the price object of a list item or a channel of a card.
create function api._price_summary(
    p_channel pricing.channel, p_input numeric, p_output numeric, p_cached numeric,
    p_blended numeric, p_verified timestamptz, p_as_of timestamptz
)
returns jsonb
language sql stable
as $$
    select case when p_channel is null then null else jsonb_build_object(
        'channel', p_channel,
        'tier', 'standard',
        'unit', 'usd_per_1m_tokens',
        'input', api._dec(p_input),
        'output', api._dec(p_output),
        'cached_input', api._dec(p_cached),
        'blended', api._dec(p_blended),
        'last_verified_at', api._ts(p_verified),
        'is_stale', api._is_stale(p_verified, p_as_of)) end
$$;

-- api._listing_rows(day, as_of): the rows of pricing.model_listing, each with
-- its item (pricing.model_listing_item), for prices in effect on `day`,
-- is_stale judged against `as_of`. Used by publish.refresh_listing() and by
-- GET /models?as_of=<day>.
create function api._listing_rows(p_day date, p_as_of timestamptz)
returns table (
    scope text, model_id text, channel pricing.channel, provider text,
    status pricing.lifecycle, modality pricing.modality, input_modalities pricing.modality [],
    kind pricing.model_kind, context_window integer, input_usd numeric, output_usd numeric, blended_usd numeric,
    k_input numeric, k_output numeric, k_blended numeric, k_context numeric, k_updated numeric,
    item jsonb
)
language sql stable
as $$
    with priced as (
        select * from api._channel_prices(p_day, array(select m.id from pricing.models as m))
    ),
    scoped as (
        select 'any' as scope, m.id as model_id, r.channel, r.input_usd, r.output_usd,
               r.cached_input_usd, r.blended_usd, r.last_verified_at
        from pricing.models as m
        left join priced as r on r.model_id = m.id and r.reference_rank = 1
        union all
        select r.channel::text, r.model_id, r.channel, r.input_usd, r.output_usd,
               r.cached_input_usd, r.blended_usd, r.last_verified_at
        from priced as r
    )
    select s.scope, m.id, s.channel, m.provider, m.status, m.modality, m.input_modalities,
           m.kind, m.context_window, s.input_usd, s.output_usd, s.blended_usd,
           coalesce(s.input_usd, 'Infinity'),
           coalesce(s.output_usd, 'Infinity'),
           coalesce(s.blended_usd, 'Infinity'),
           -coalesce(m.context_window, 0)::numeric,
           coalesce(-extract(epoch from m.updated_at), 'Infinity'),  -- unknown last
           api._model_fields(m) || jsonb_build_object(
               'provider', m.provider,
               'price', api._price_summary(s.channel, s.input_usd, s.output_usd, s.cached_input_usd,
                                           s.blended_usd, s.last_verified_at, p_as_of))
    from scoped as s
    join pricing.models as m on m.id = s.model_id
$$;
