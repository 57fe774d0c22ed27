-- Schema `publish`: the publishing pipeline's side of a publish. Not granted to
-- the web role. `pricing publish` fills the stage tables made by
-- publish.create_stage() and calls publish.apply() in the same transaction, so a
-- publish lands whole or not at all.
create schema publish;

-- publish.create_stage(): temporary stage tables for one snapshot, dropped at commit.
create function publish.create_stage()
returns void
language plpgsql
as $$
begin
    create temp table stage_providers (
        slug text primary key,
        name text not null
    ) on commit drop;
    create temp table stage_models (
        id text primary key,
        provider text not null,
        slug text not null,
        name text not null,
        modality pricing.modality not null,
        input_modalities pricing.modality [] not null,
        output_modalities pricing.modality [] not null,
        status pricing.lifecycle not null,
        context_window integer,
        max_output_tokens integer,
        launch_date date,
        deprecation_date date,
        retirement_date date,
        successor text,
        launch_basis pricing.launch_basis,
        launch_source text,
        launch_precision pricing.date_precision,
        kind pricing.model_kind
    ) on commit drop;
    -- the providers' lifecycle statements of the staged models (docs/snapshot-format.md 5.2)
    create temp table stage_lifecycle (
        model_id text not null,
        channel pricing.channel not null,
        announced date,
        shutdown date,
        not_before date,
        successor text,
        source text not null,
        url text,
        decides boolean not null,
        primary key (model_id, channel)
    ) on commit drop;
    create temp table stage_aliases (
        alias text primary key,
        model_id text not null,
        kind pricing.alias_kind not null,
        channel pricing.channel
    ) on commit drop;
    create temp table stage_prices (
        model_id text not null,
        channel pricing.channel not null,
        component pricing.component not null,
        tier pricing.service_tier not null,
        usd_per_1m numeric(20, 10) not null,
        valid_from date not null,
        valid_to date,
        last_verified_at timestamptz not null,
        source text not null,
        -- the source releases that show this step (null: not given)
        sources jsonb,
        -- {"until", "url"} of a promotional price, null on a regular one
        promotion jsonb,
        primary key (model_id, channel, component, tier, valid_from)
    ) on commit drop;
    -- conditional rates (docs/snapshot-format.md, conditional_prices): the
    -- columns of stage_prices, then the condition; component is text, as it
    -- includes cache_write
    create temp table stage_conditional_prices (
        like stage_prices,
        above_input_tokens integer,
        cache_ttl text,
        region text,
        time_window jsonb,
        unique nulls not distinct (
            model_id, channel, component, tier, above_input_tokens, cache_ttl, region,
            time_window, valid_from
        )
    ) on commit drop;
    alter table stage_conditional_prices alter column component type text;
    -- a model's limits history (docs/snapshot-format.md, models[].limits)
    create temp table stage_limits (
        model_id text not null,
        valid_from date not null,
        context_window integer,
        max_output_tokens integer,
        sources jsonb,
        primary key (model_id, valid_from)
    ) on commit drop;
    create temp table stage_benchmarks (
        model_id text not null,
        benchmark text not null,
        score numeric(12, 4) not null,
        source text not null,
        measured_on date not null,
        primary key (model_id, benchmark)
    ) on commit drop;
end
$$;

-- publish.corroboration(sources, catalogue): how many independent sources
-- show a step or limit entry: the source ids of its `"<source id> <version>"`
-- releases, each counted as the source it is derived from where the snapshot's
-- `sources[]` (catalogue) names one (a dated history of another source's file
-- is that source again, not a second witness). Null when the snapshot does not
-- say (sources null).
create function publish.corroboration(p_sources jsonb, p_catalogue jsonb)
returns integer
language sql immutable
as $$
    select case when p_sources is not null then (
        select count(distinct coalesce(c ->> 'derived_from', split_part(x, ' ', 1)))::integer
        from jsonb_array_elements_text(p_sources) as x
        left join jsonb_array_elements(p_catalogue) as c on c ->> 'id' = split_part(x, ' ', 1))
    end
$$;

-- publish.price_significance(): 0-100 for a price move, see docs/publishing.md.
-- magnitude: |ln(new/old)| / ln 2 capped at 1 (a halving or doubling is full
-- size; from or to zero is full size); +0.10 when the price rises; plus 0.35 x
-- the model's prominence; all scaled by channel (official 1, others 0.8),
-- component (cached_input and cache_write 0.7), tier (standard 1, others
-- 0.8), condition (a conditional rate 0.6: it prices only the requests or
-- tokens its condition covers) and corroboration (three or more sources 1,
-- two 0.9, one or unknown 0.7).
create function publish.price_significance(
    old_price numeric, new_price numeric, p_channel pricing.channel, p_component text,
    p_tier pricing.service_tier, p_condition jsonb, prominence numeric, corroboration integer
)
returns smallint
language sql immutable
as $$
    select greatest(0, least(100, round(100
        * (0.55 * (case when old_price = 0 or new_price = 0 then 1
                        else least(1, abs(ln(new_price / old_price)) / ln(2)) end)
           + (case when new_price > old_price then 0.10 else 0 end)
           + 0.35 * prominence)
        * (case when p_channel = 'official' then 1 else 0.8 end)
        * (case when p_component in ('cached_input', 'cache_write') then 0.7 else 1 end)
        * (case when p_tier = 'standard' then 1 else 0.8 end)
        * (case when p_condition is null then 1 else 0.6 end)
        * (case when corroboration >= 3 then 1 when corroboration = 2 then 0.9 else 0.7 end))))::smallint
$$;

-- publish.lifecycle_significance(): 0-100 for launches, deprecations,
-- retirements and limit changes: a weight per event type plus prominence;
-- a limit change also counts its relative size like a price move.
create function publish.lifecycle_significance(
    p_type pricing.event_type, prominence numeric, old_limit numeric default null,
    new_limit numeric default null
)
returns smallint
language sql immutable
as $$
    select greatest(0, least(100, round(case p_type
        when 'model_launch' then 30 + 50 * prominence
        when 'deprecation' then 40 + 40 * prominence
        when 'retirement' then 50 + 40 * prominence
        when 'limit_change' then 15 + 30 * prominence
            + 25 * coalesce(least(1, abs(ln(new_limit / nullif(old_limit, 0))) / ln(2)), 1)
        else 0 end)))::smallint
$$;

-- publish.lock(): takes the publish lock for the calling transaction (one
-- publish at a time, across every process) and returns the time once it is
-- held: the publish time of a publish without --at, taken under the lock so
-- that it is after the publish that held the lock before.
create function publish.lock()
returns timestamptz
language sql volatile
as $$
    select pg_advisory_xact_lock(7072696369000001);
    select clock_timestamp();
$$;

-- publish.apply(as_of, sha256, sources): diff the stage against what is
-- published, write the new state, emit events, and record the publish.
-- Returns the summary (counts of models, rows and events by type).
-- Raises P0001 when as_of is not after the last publish.
create function publish.apply(p_as_of timestamptz, p_sha256 text, p_sources jsonb)
returns jsonb
language plpgsql
as $$
declare
    v_publish bigint;
    v_today date := (p_as_of at time zone 'UTC')::date;
    v_last timestamptz;
    v_last_day date;
    v_summary jsonb;
    v_rows_inserted bigint;
    v_rows_deleted bigint;
    v_conditional_inserted bigint;
    v_conditional_deleted bigint;
    v_withdrawn bigint;
begin
    perform publish.lock();
    select s.as_of into v_last from api._served(false) as s;
    if v_last is not null and p_as_of <= v_last then
        raise exception 'publish time % is not after the last publish (%)', p_as_of, v_last
            using errcode = 'P0001',
                  hint = 'publish with a later --at, or without --at to use the current time';
    end if;
    v_last_day := (v_last at time zone 'UTC')::date;
    -- The day the last publish's data ran to: its newest source release (the
    -- providers' pages, read on other days, aside) when before its publish
    -- day. A model first priced after that day is news: `pricing sync`
    -- publishes days after a release, and its last run could not have seen
    -- a model that a release dated before that run's publish day first shows.
    select least(v_last_day, max((s ->> 'released')::date)) into v_last_day
    from pricing.publishes as p
    cross join lateral jsonb_array_elements(p.summary -> 'sources') as s
    where p.as_of = v_last and s ->> 'package' is not null;
    insert into pricing.publishes (as_of, snapshot_sha256, summary)
    values (p_as_of, p_sha256, jsonb_build_object('sources', p_sources))
    returning id into v_publish;

    insert into pricing.providers (slug, name)
    select slug, name from stage_providers
    on conflict (slug) do update set name = excluded.name
    where providers.name is distinct from excluded.name;

    -- How prominent each model is (0-1): channels it is sold on now, a price on
    -- its maker's own API, and an Arena rating.
    create temp table stage_prominence on commit drop as
    select m.id,
           least(1, 0.5 * least(coalesce(c.channels, 0), 5) / 5.0
                    + case when c.has_official then 0.2 else 0 end
                    + case when b.model_id is not null then 0.3 else 0 end)::numeric as prominence
    from stage_models as m
    left join (
        select model_id, count(distinct channel) as channels, bool_or(channel = 'official') as has_official
        from stage_prices
        where valid_from <= v_today and (valid_to is null or valid_to > v_today)
        group by model_id
    ) as c on c.model_id = m.id
    left join (
        select distinct model_id from stage_benchmarks where benchmark like 'arena%'
    ) as b on b.model_id = m.id;

    create temp table old_models on commit drop as
    select m.id, m.status, m.context_window, m.max_output_tokens, m.deprecation_date
    from pricing.models as m
    join stage_models as s on s.id = m.id;

    insert into pricing.models as m (
        id, provider, slug, name, modality, input_modalities, output_modalities, status,
        context_window, max_output_tokens, launch_date, deprecation_date, retirement_date,
        successor, launch_basis, launch_source, launch_precision, kind, updated_in, updated_at
    )
    select s.id, s.provider, s.slug, s.name, s.modality, s.input_modalities, s.output_modalities,
           s.status, s.context_window, s.max_output_tokens, s.launch_date, s.deprecation_date,
           s.retirement_date, s.successor, s.launch_basis, s.launch_source, s.launch_precision,
           s.kind, v_publish, null
    from stage_models as s
    on conflict (id) do update set
        provider = excluded.provider, slug = excluded.slug, name = excluded.name,
        modality = excluded.modality, input_modalities = excluded.input_modalities,
        output_modalities = excluded.output_modalities, status = excluded.status,
        context_window = excluded.context_window, max_output_tokens = excluded.max_output_tokens,
        launch_date = excluded.launch_date, deprecation_date = excluded.deprecation_date,
        retirement_date = excluded.retirement_date, successor = excluded.successor,
        launch_basis = excluded.launch_basis, launch_source = excluded.launch_source,
        launch_precision = excluded.launch_precision, kind = excluded.kind,
        updated_in = excluded.updated_in
    where (m.provider, m.slug, m.name, m.modality, m.input_modalities, m.output_modalities,
           m.status, m.context_window, m.max_output_tokens, m.launch_date, m.deprecation_date,
           m.retirement_date, m.successor, m.launch_basis, m.launch_source, m.launch_precision,
           m.kind)
          is distinct from
          (excluded.provider, excluded.slug, excluded.name, excluded.modality,
           excluded.input_modalities, excluded.output_modalities, excluded.status,
           excluded.context_window, excluded.max_output_tokens, excluded.launch_date,
           excluded.deprecation_date, excluded.retirement_date, excluded.successor,
           excluded.launch_basis, excluded.launch_source, excluded.launch_precision, excluded.kind);

    -- Lifecycle and limit events, from the stage against the previous state.
    -- Each is dated by the day it happened; an event whose day is unknown is
    -- not emitted (the publish day would be a made-up date): a launch without
    -- a launch date is dated by its first price only when that price starts
    -- after the previous publish (a model newly on sale since then).
    insert into pricing.events (
        publish_id, event_type, model_id, provider, old_value, new_value, significance,
        effective_date, detail
    )
    select v_publish, e.event_type, s.id, s.provider, e.old_value, e.new_value,
           publish.lifecycle_significance(e.event_type, p.prominence, e.old_limit, e.new_limit),
           e.effective_date, e.detail
    from stage_models as s
    join stage_prominence as p on p.id = s.id
    left join old_models as o on o.id = s.id
    left join (
        select model_id, min(valid_from) as first_price from stage_prices group by model_id
    ) as f on f.model_id = s.id
    cross join lateral (
        select 'model_launch'::pricing.event_type as event_type, null::text as old_value,
               s.status::text as new_value,
               coalesce(s.launch_date, f.first_price) as effective_date,
               null::numeric as old_limit, null::numeric as new_limit,
               jsonb_build_object('name', s.name,
                                  'date_basis', case when s.launch_date is not null then 'launch_date'
                                                     else 'first_price' end,
                                  'launch_basis', s.launch_basis, 'launch_source', s.launch_source,
                                  'launch_precision', s.launch_precision) as detail
        where o.id is null
          and (s.launch_date is not null or f.first_price > v_last_day)
        union all
        -- a model without lifecycle statements in the snapshot (an older snapshot):
        -- its model-level dates (the statements' events are below)
        select 'deprecation', o.status::text, s.status::text, s.deprecation_date, null, null,
               jsonb_build_object('deprecation_date', s.deprecation_date, 'successor', s.successor)
        where s.deprecation_date is not null
          and (o.id is null or o.deprecation_date is distinct from s.deprecation_date)
          and not exists (select from stage_lifecycle as l where l.model_id = s.id)
        union all
        select 'retirement', o.status::text, s.status::text, s.retirement_date, null, null,
               jsonb_build_object('retirement_date', s.retirement_date, 'successor', s.successor)
        where s.status = 'retired' and s.retirement_date is not null
          and (o.id is null or o.status <> 'retired')
          and not exists (select from stage_lifecycle as l where l.model_id = s.id)
        -- A snapshot without a limits history for the model: a change of its
        -- current limits since the last publish, seen on the publish day.
        union all
        select 'limit_change', c.old_value::text, c.new_value::text, v_today,
               c.old_value, c.new_value,
               jsonb_build_object('limit', c.limit_name, 'date_basis', 'publish')
        from (values ('context_window', o.context_window, s.context_window),
                     ('max_output_tokens', o.max_output_tokens, s.max_output_tokens))
             as c (limit_name, old_value, new_value)
        where c.old_value is not null and c.new_value is not null
          and c.old_value <> c.new_value
          and not exists (select from stage_limits as l where l.model_id = s.id)
    ) as e;

    -- The providers' lifecycle statements: a `deprecation` on the day a page
    -- says the deprecation was announced and a `retirement` on its shutdown
    -- day, past or future (a future one is published ahead, as a scheduled
    -- price change is), each naming the statement's channel, with the
    -- successor and the page in its detail. One published before (same model,
    -- type, channel and day; a model-level event of an older publish counts
    -- as the maker's, `official`) is not emitted again; a page that moves a
    -- day emits the event of the new day. A cloud's or reseller's statement
    -- weighs 0.8 of the maker's.
    insert into pricing.events (
        publish_id, event_type, model_id, provider, channel, old_value, new_value, significance,
        effective_date, detail
    )
    select v_publish, e.event_type, l.model_id, s.provider, l.channel, o.status::text, s.status::text,
           round(publish.lifecycle_significance(e.event_type, p.prominence)
                 * case when l.channel = 'official' then 1 else 0.8 end)::smallint,
           e.day,
           jsonb_build_object('channel', l.channel, 'announced', l.announced, 'shutdown', l.shutdown,
                              'successor', l.successor,
                              'successor_name', (select x.name from stage_models as x where x.id = l.successor),
                              'source', l.source, 'url', l.url, 'date_basis', 'provider_page')
    from stage_lifecycle as l
    join stage_models as s on s.id = l.model_id
    join stage_prominence as p on p.id = l.model_id
    left join old_models as o on o.id = l.model_id
    cross join lateral (
        values ('deprecation'::pricing.event_type, l.announced), ('retirement'::pricing.event_type, l.shutdown)
    ) as e (event_type, day)
    where e.day is not null
      and not exists (
          select from pricing.events as x
          where x.model_id = l.model_id and x.event_type = e.event_type and x.effective_date = e.day
            and coalesce(x.channel, 'official') = l.channel);

    -- The statements themselves, the stage being the whole truth for the
    -- models it names (the card's `lifecycle`): replaced whole, so that a
    -- model never has two statements its status rests on.
    delete from pricing.lifecycle_statements as x using stage_models as s where x.model_id = s.id;
    insert into pricing.lifecycle_statements (
        model_id, channel, announced, shutdown, not_before, successor, source, url, decides, published_in
    )
    select model_id, channel, announced, shutdown, not_before, successor, source, url, decides, v_publish
    from stage_lifecycle;

    -- Limit changes from the limits histories: one event per entry in effect
    -- by the publish day and limit that changed from a known value to a known
    -- value, dated at the entry; one published before (same model, limit, day
    -- and values) is not emitted again, nor one that a publish on or after its
    -- day already saw without a history (same values, date_basis publish):
    -- one change, one event.
    insert into pricing.events (
        publish_id, event_type, model_id, provider, old_value, new_value, significance,
        effective_date, detail
    )
    select v_publish, 'limit_change', h.model_id, s.provider, c.old_value::text, c.new_value::text,
           publish.lifecycle_significance('limit_change', p.prominence, c.old_value, c.new_value),
           h.valid_from,
           jsonb_build_object('limit', c.limit_name, 'sources', h.sources,
                              'corroboration', publish.corroboration(h.sources, p_sources),
                              'date_basis', 'limits_history')
    from (
        select l.*,
               lag(l.context_window) over w as old_context_window,
               lag(l.max_output_tokens) over w as old_max_output_tokens
        from stage_limits as l
        window w as (partition by l.model_id order by l.valid_from)
    ) as h
    join stage_models as s on s.id = h.model_id
    join stage_prominence as p on p.id = h.model_id
    cross join lateral (
        values ('context_window', h.old_context_window, h.context_window),
               ('max_output_tokens', h.old_max_output_tokens, h.max_output_tokens)
    ) as c (limit_name, old_value, new_value)
    where c.old_value <> c.new_value
      and h.valid_from <= v_today
      and not exists (
          select from pricing.events as x
          where x.model_id = h.model_id and x.event_type = 'limit_change'
            and x.detail ->> 'limit' = c.limit_name
            and x.old_value = c.old_value::text and x.new_value = c.new_value::text
            and (x.effective_date = h.valid_from
                 or (x.detail ->> 'date_basis' = 'publish' and x.effective_date >= h.valid_from)));

    -- Aliases: the stage is the whole truth for the models it names.
    delete from pricing.aliases as a
    using stage_models as s
    where a.model_id = s.id
      and not exists (select from stage_aliases as sa where sa.alias = a.alias);
    insert into pricing.aliases as a (alias, model_id, kind, channel)
    select alias, model_id, kind, channel from stage_aliases
    on conflict (alias) do update set
        model_id = excluded.model_id, kind = excluded.kind, channel = excluded.channel
    where (a.model_id, a.kind, a.channel) is distinct from (excluded.model_id, excluded.kind, excluded.channel);

    -- Price steps that are new: no published row has the same series, start
    -- and price. A series is a standard rate (condition null) or a conditional
    -- one (its condition, as the card shows it); both emit price events alike.
    insert into pricing.events (
        publish_id, event_type, model_id, provider, channel, component, tier, old_value,
        new_value, significance, effective_date, detail, condition
    )
    with staged as (
        select s.model_id, s.channel, s.component::text as component, s.tier, s.usd_per_1m,
               s.valid_from, s.valid_to, s.source, s.sources, null::jsonb as condition
        from stage_prices as s
        union all
        select s.model_id, s.channel, s.component, s.tier, s.usd_per_1m, s.valid_from,
               s.valid_to, s.source, s.sources, api._condition(s.above_input_tokens, s.cache_ttl, s.region,
                                                   s.time_window)
        from stage_conditional_prices as s
    ),
    published as (
        select x.model_id, x.channel, x.component::text as component, x.tier, x.usd_per_1m,
               x.valid_from, null::jsonb as condition
        from pricing.prices as x
        union all
        select x.model_id, x.channel, x.component, x.tier, x.usd_per_1m, x.valid_from,
               api._condition(x.above_input_tokens, x.cache_ttl, x.region, x.time_window)
        from pricing.conditional_prices as x
    )
    select v_publish,
           case when r.valid_from > v_today then 'price_change_scheduled' else 'price_change' end::pricing.event_type,
           r.model_id, m.provider, r.channel, r.component, r.tier,
           trim_scale(q.usd_per_1m)::text, trim_scale(r.usd_per_1m)::text,
           publish.price_significance(q.usd_per_1m, r.usd_per_1m, r.channel, r.component, r.tier,
                                      r.condition, p.prominence, c.corroboration),
           r.valid_from,
           jsonb_build_object('source', r.source, 'sources', r.sources,
                              'corroboration', c.corroboration),
           r.condition
    from staged as r
    join staged as q
      on (q.model_id, q.channel, q.component, q.tier) = (r.model_id, r.channel, r.component, r.tier)
     and q.condition is not distinct from r.condition
     and q.valid_to = r.valid_from
    join stage_models as m on m.id = r.model_id
    join stage_prominence as p on p.id = r.model_id
    cross join lateral (select publish.corroboration(r.sources, p_sources) as corroboration) as c
    where q.usd_per_1m <> r.usd_per_1m
      and not exists (
          select from published as x
          where (x.model_id, x.channel, x.component, x.tier, x.valid_from, x.usd_per_1m)
              = (r.model_id, r.channel, r.component, r.tier, r.valid_from, r.usd_per_1m)
            and x.condition is not distinct from r.condition);

    -- Replace the rows of every staged series that differ from the stage.
    with gone as (
        delete from pricing.prices as x
        where exists (
            select from stage_prices as s
            where (s.model_id, s.channel, s.component, s.tier) = (x.model_id, x.channel, x.component, x.tier))
          and not exists (
            select from stage_prices as s
            where (s.model_id, s.channel, s.component, s.tier, s.valid_from) = (x.model_id, x.channel, x.component, x.tier, x.valid_from)
              and s.usd_per_1m = x.usd_per_1m
              and s.valid_to is not distinct from x.valid_to)
        returning 1
    )
    select count(*) into v_rows_deleted from gone;
    with added as (
        insert into pricing.prices as x (
            model_id, channel, component, tier, usd_per_1m, valid_from, valid_to,
            last_verified_at, source, promotion, published_in
        )
        select s.model_id, s.channel, s.component, s.tier, s.usd_per_1m, s.valid_from, s.valid_to,
               s.last_verified_at, s.source, s.promotion, v_publish
        from stage_prices as s
        on conflict (model_id, channel, component, tier, valid_from) do update set
            last_verified_at = excluded.last_verified_at, source = excluded.source,
            promotion = excluded.promotion
        where (x.last_verified_at, x.source, x.promotion)
              is distinct from (excluded.last_verified_at, excluded.source, excluded.promotion)
        returning (xmax = 0) as inserted
    )
    select count(*) filter (where inserted) into v_rows_inserted from added;

    -- Conditional rates: the same replacement, a series being its model,
    -- channel, component, tier and condition (their events are above).
    with gone as (
        delete from pricing.conditional_prices as x
        where exists (
            select from stage_conditional_prices as s
            where (s.model_id, s.channel, s.component, s.tier, s.above_input_tokens, s.cache_ttl,
                   s.region, s.time_window)
                  is not distinct from
                  (x.model_id, x.channel, x.component, x.tier, x.above_input_tokens, x.cache_ttl,
                   x.region, x.time_window))
          and not exists (
            select from stage_conditional_prices as s
            where (s.model_id, s.channel, s.component, s.tier, s.above_input_tokens, s.cache_ttl,
                   s.region, s.time_window, s.valid_from, s.usd_per_1m, s.valid_to)
                  is not distinct from
                  (x.model_id, x.channel, x.component, x.tier, x.above_input_tokens, x.cache_ttl,
                   x.region, x.time_window, x.valid_from, x.usd_per_1m, x.valid_to))
        returning 1
    )
    select count(*) into v_conditional_deleted from gone;
    with added as (
        insert into pricing.conditional_prices as x (
            model_id, channel, component, tier, above_input_tokens, cache_ttl, region,
            time_window, usd_per_1m, valid_from, valid_to, last_verified_at, source, promotion,
            published_in
        )
        select s.model_id, s.channel, s.component, s.tier, s.above_input_tokens, s.cache_ttl,
               s.region, s.time_window, s.usd_per_1m, s.valid_from, s.valid_to, s.last_verified_at, s.source, s.promotion,
               v_publish
        from stage_conditional_prices as s
        on conflict (model_id, channel, component, tier, above_input_tokens, cache_ttl, region,
                     time_window, valid_from)
        do update set last_verified_at = excluded.last_verified_at, source = excluded.source,
                      promotion = excluded.promotion
        where (x.last_verified_at, x.source, x.promotion)
              is distinct from (excluded.last_verified_at, excluded.source, excluded.promotion)
        returning (xmax = 0) as inserted
    )
    select count(*) filter (where inserted) into v_conditional_inserted from added;

    delete from pricing.benchmarks as b
    using stage_models as s
    where b.model_id = s.id
      and not exists (select from stage_benchmarks as sb where (sb.model_id, sb.benchmark) = (b.model_id, b.benchmark));
    insert into pricing.benchmarks as b (model_id, benchmark, score, source, measured_on)
    select model_id, benchmark, score, source, measured_on from stage_benchmarks
    on conflict (model_id, benchmark) do update set
        score = excluded.score, source = excluded.source, measured_on = excluded.measured_on
    where (b.score, b.source, b.measured_on) is distinct from (excluded.score, excluded.source, excluded.measured_on);

    -- A model's updated_at is the day of its newest published event in effect
    -- on the publish day (of any publish: a scheduled change counts once its
    -- day has come), null when it has none. Recomputed for every model, so
    -- it never holds the publish time.
    update pricing.models as m
    set updated_at = latest.at, updated_in = v_publish
    from (
        select x.id,
               (select max(e.effective_date) from pricing.events as e
                where e.model_id = x.id and e.effective_date <= v_today)::timestamp at time zone 'UTC' as at
        from pricing.models as x
    ) as latest
    where m.id = latest.id and m.updated_at is distinct from latest.at;

    -- A publish is the whole truth: a model the snapshot no longer names is
    -- withdrawn, with its prices, aliases, benchmarks and events (cascades
    -- of V1), and counted in the summary; the sync guard counts the prices it
    -- had in effect as dropped (docs/publishing.md, "What a publish replaces").
    with gone as (
        delete from pricing.models as m
        where not exists (select from stage_models as s where s.id = m.id)
        returning m.id
    )
    select count(*) into v_withdrawn from gone;

    perform publish.refresh_listing(v_publish);  -- sql/55_listing.sql
    perform publish.refresh_dump(v_publish);

    select jsonb_build_object(
        'sources', p_sources,
        'models', (select count(*) from stage_models),
        'models_withdrawn', v_withdrawn,
        'price_rows_inserted', v_rows_inserted,
        'price_rows_deleted', v_rows_deleted,
        'conditional_rows_inserted', v_conditional_inserted,
        'conditional_rows_deleted', v_conditional_deleted,
        'events', coalesce((
            select jsonb_object_agg(event_type, n)
            from (select event_type, count(*) as n from pricing.events
                  where publish_id = v_publish group by event_type) as c), '{}'::jsonb)
    ) into v_summary;
    update pricing.publishes set summary = v_summary where id = v_publish;
    perform pg_notify('pricing_publish', v_publish::text);  -- drops the servers' response caches
    return v_summary;
end
$$;
