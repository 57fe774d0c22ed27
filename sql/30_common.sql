-- Helpers shared by the api functions. Names start with an underscore and the
-- web role may not call them (sql/99_grants.sql): they are building blocks of
-- the public functions, which run them with the owner's rights.
--
-- Errors: every api function reports a failure the client caused with
--   raise exception using errcode = 'PR...', message = <what is wrong>,
--     detail = <JSON object merged into the error body, e.g. did_you_mean>,
--     hint = <next_step: what the client can do>;
-- server/src/error.rs maps the codes to the spec's codes and HTTP statuses:
--   PRARG INVALID_ARGUMENT (400)   PRCUR INVALID_CURSOR (400)
--   PRWIN WINDOW_TOO_LARGE (400)   PRMNF MODEL_NOT_FOUND (404)
--   PRPNF PROVIDER_NOT_FOUND (404) PRNPD NO_PRICE_DATA (404)

-- api._served(): the publish being served: id, as_of, and its UTC day (the day
-- whose prices are "current"). Raises PRNOD (503 SERVICE_UNAVAILABLE) while
-- nothing has been published.
create function api._served()
returns table (id bigint, as_of timestamptz, day date)
language plpgsql stable security definer
set search_path = pricing, pg_temp
as $$
begin
    return query
    select p.id, p.as_of, (p.as_of at time zone 'UTC')::date
    from pricing.publishes as p
    order by p.id desc
    limit 1;
    if not found then
        raise exception using
            errcode = 'PRNOD',
            message = 'no pricing data has been published yet',
            hint = 'retry later; the operator publishes data with `pricing publish`';
    end if;
end
$$;

-- api._ts(t): RFC 3339 UTC text, 'Z' suffix, fractional seconds only when present.
--
-- Helpers that build values row by row are plain SQL (no SET, no SECURITY
-- DEFINER, no subquery) and no less volatile than their bodies, so that the
-- planner inlines them into the calling query: an immutable function whose
-- body is only stable (to_char, date_trunc and arithmetic on timestamptz are)
-- is never inlined, and a call that is not inlined re-plans its body in every
-- query that runs it.
create function api._ts(t timestamptz)
returns text
language sql stable
as $$
    select case
        when t is null then null
        when date_trunc('second', t) = t
            then to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        else rtrim(to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0') || 'Z'
    end
$$;

-- api._dec(n): an exact decimal string without trailing zeros ("2.5", never
-- "2.5000000000"); null stays null. Prices are never floats.
create function api._dec(n numeric)
returns text
language sql immutable
as $$
    select trim_scale(n)::text
$$;

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

-- api._raise_invalid(parameter, message, allowed): INVALID_ARGUMENT naming the
-- parameter and the values it allows.
create function api._raise_invalid(p_parameter text, p_message text, p_allowed text)
returns void
language plpgsql
as $$
begin
    raise exception using
        errcode = 'PRARG',
        message = format('%s; %s takes %s', p_message, p_parameter, p_allowed),
        detail = jsonb_build_object('parameter', p_parameter, 'allowed', p_allowed)::text,
        hint = format('pass %s as %s', p_parameter, p_allowed);
end
$$;

-- api._check_limit(limit): INVALID_ARGUMENT unless a page size of 1 to 100.
create function api._check_limit(p_limit integer)
returns void
language plpgsql
as $$
begin
    if p_limit is null or p_limit not between 1 and 100 then
        perform api._raise_invalid('limit', format('limit must be an integer from 1 to 100, got %s', p_limit),
                                   'an integer from 1 to 100');
    end if;
end
$$;

-- api._b64url(bytes) / api._unb64url(text): base64url without padding.
create function api._b64url(p_bytes bytea)
returns text
language sql immutable
as $$
    select translate(encode(p_bytes, 'base64'), '+/=' || chr(10), '-_')
$$;

create function api._unb64url(p_text text)
returns bytea
language sql immutable strict
as $$
    select decode(
        rpad(translate(p_text, '-_', '+/'), (length(p_text) + 3) / 4 * 4, '='), 'base64')
$$;

-- api._filters_hash(filters): a short hash of the normalized filters a cursor
-- is bound to (jsonb text is canonical: sorted keys, no spaces variance).
create function api._filters_hash(p_filters jsonb)
returns text
language sql stable
as $$
    select left(encode(sha256(convert_to(p_filters::text, 'UTF8')), 'hex'), 16)
$$;

-- api._cursor_mac(payload): a keyed hash, sha256(k || sha256(k || payload)),
-- over the cursor's payload; 16 bytes, hex. PL/pgSQL, as is api._cursor_make:
-- a SQL function that reads a table is not inlined, and then plans its body
-- anew in every transaction, where PL/pgSQL keeps its plans for the session.
create function api._cursor_mac(p_payload jsonb)
returns text
language plpgsql stable security definer
set search_path = pricing, pg_temp
as $$
begin
    return (select left(encode(sha256(k.secret || sha256(k.secret || convert_to(p_payload::text, 'UTF8'))), 'hex'), 32)
            from pricing.cursor_key as k);
end
$$;

-- api._cursor_make(endpoint, publish, filters, key): the opaque next_cursor:
-- base64url of {"v":1,"e":endpoint,"p":publish,"f":hash(filters),"k":key,"m":mac}.
create function api._cursor_make(p_endpoint text, p_publish bigint, p_filters jsonb, p_key jsonb)
returns text
language plpgsql stable
as $$
declare
    v_payload jsonb := jsonb_build_object(
        'v', 1, 'e', p_endpoint, 'p', p_publish, 'f', api._filters_hash(p_filters), 'k', p_key);
begin
    return api._b64url(convert_to(
        (v_payload || jsonb_build_object('m', api._cursor_mac(v_payload)))::text, 'UTF8'));
end
$$;

-- api._cursor_read(endpoint, publish, filters, cursor): the key stored in a
-- cursor made by api._cursor_make for the same endpoint, publish and filters.
-- Raises PRCUR (INVALID_CURSOR) when the cursor is malformed, was edited, was
-- made for other filters or another endpoint, or for an earlier publish.
create function api._cursor_read(p_endpoint text, p_publish bigint, p_filters jsonb, p_cursor text)
returns jsonb
language plpgsql stable
as $$
declare
    v_doc jsonb;
    v_restart constant text := 'restart the listing: repeat the request without cursor';
begin
    if p_cursor is null then
        return null;
    end if;
    begin
        if length(p_cursor) > 2048 or p_cursor !~ '^[A-Za-z0-9_-]+$' then
            raise exception 'not base64url';
        end if;
        v_doc := convert_from(api._unb64url(p_cursor), 'UTF8')::jsonb;
        if jsonb_typeof(v_doc) <> 'object' then
            raise exception 'not an object';
        end if;
    exception when others then
        raise exception using
            errcode = 'PRCUR',
            message = 'cursor is malformed: pass the next_cursor of a previous page unchanged',
            detail = jsonb_build_object('parameter', 'cursor')::text,
            hint = v_restart;
    end;
    if v_doc ->> 'm' is null or v_doc ->> 'm' is distinct from api._cursor_mac(v_doc - 'm')
       or v_doc -> 'v' is distinct from '1'::jsonb or jsonb_typeof(v_doc -> 'k') is distinct from 'array' then
        raise exception using
            errcode = 'PRCUR',
            message = 'cursor is malformed or was altered: cursors are opaque, pass next_cursor unchanged',
            detail = jsonb_build_object('parameter', 'cursor')::text,
            hint = v_restart;
    end if;
    if v_doc ->> 'e' is distinct from p_endpoint then
        raise exception using
            errcode = 'PRCUR',
            message = format('cursor was made for another listing (%s), not for this one (%s)',
                             v_doc ->> 'e', p_endpoint),
            detail = jsonb_build_object('parameter', 'cursor')::text,
            hint = v_restart;
    end if;
    if v_doc ->> 'f' is distinct from api._filters_hash(p_filters) then
        raise exception using
            errcode = 'PRCUR',
            message = 'the filters or the sort changed since this cursor was made: a cursor only '
                      'continues the listing it came from, with the same parameters (limit aside)',
            detail = jsonb_build_object('parameter', 'cursor')::text,
            hint = v_restart || ', or repeat the original parameters with this cursor';
    end if;
    if (v_doc ->> 'p')::bigint is distinct from p_publish then
        raise exception using
            errcode = 'PRCUR',
            message = 'the data was republished since this cursor was made, so its pages would '
                      'no longer fit together',
            detail = jsonb_build_object('parameter', 'cursor')::text,
            hint = v_restart || ' to page through the new publish';
    end if;
    return v_doc -> 'k';
end
$$;

-- api._model_suggestions(text): up to 5 canonical model ids that look like the
-- text (trigram similarity over ids, names and aliases), best first. Only the
-- text's first 64 characters are compared (longer than any id or alias), so
-- the cost does not grow with the input.
create function api._model_suggestions(p_text text)
returns jsonb
language sql stable security definer
set search_path = pricing, pg_temp
as $$
    select coalesce(jsonb_agg(s.id order by s.score desc, s.id), '[]'::jsonb)
    from (
        select c.id, max(c.score) as score
        from (
            select m.id,
                   greatest(public.similarity(t.text, m.id), public.similarity(t.text, lower(m.name)),
                            public.word_similarity(split_part(t.text, ':', 2), m.id)) as score
            from pricing.models as m, (select lower(left(p_text, 64)) as text) as t
            union all
            select a.model_id, public.similarity(t.text, lower(a.alias))
            from pricing.aliases as a, (select lower(left(p_text, 64)) as text) as t
        ) as c
        where c.score >= 0.2
        group by c.id
        order by max(c.score) desc, c.id
        limit 5
    ) as s
$$;

-- api._resolve_model(text): the canonical id of a model given by canonical id,
-- provider API id (<provider>:<api id>) or renamed slug (pricing.aliases),
-- exactly or ignoring case. Raises PRMNF (MODEL_NOT_FOUND) with did_you_mean.
create function api._resolve_model(p_id text, p_parameter text default 'model_id')
returns text
language plpgsql stable security definer
set search_path = pricing, pg_temp
as $$
declare
    v_id text;
begin
    select m.id into v_id from pricing.models as m where m.id = p_id;
    if v_id is null then
        select a.model_id into v_id from pricing.aliases as a where a.alias = p_id;
    end if;
    if v_id is null then
        select x.id into v_id
        from (
            select m.id from pricing.models as m where lower(m.id) = lower(p_id)
            union all
            select a.model_id from pricing.aliases as a where lower(a.alias) = lower(p_id)
        ) as x
        order by x.id
        limit 1;
    end if;
    if v_id is null then
        raise exception using
            errcode = 'PRMNF',
            message = format('no model %s: it is neither a model id nor a provider API id or '
                             'former slug of one', coalesce(quote_literal(p_id), 'null')),
            detail = jsonb_build_object('parameter', p_parameter,
                                        'did_you_mean', api._model_suggestions(coalesce(p_id, '')))::text,
            hint = 'use one of did_you_mean, or find the id with GET /api/v1/models?query=<name>';
    end if;
    return v_id;
end
$$;

-- api._resolve_provider(slug): the slug itself when it is a provider, else
-- raises PRPNF (PROVIDER_NOT_FOUND) with did_you_mean (similar slugs and names;
-- the slug's first 64 characters are compared, so the cost does not grow with it).
create function api._resolve_provider(p_slug text)
returns text
language plpgsql stable security definer
set search_path = pricing, pg_temp
as $$
begin
    if exists (select from pricing.providers as p where p.slug = p_slug) then
        return p_slug;
    end if;
    if exists (select from pricing.providers as p where p.slug = lower(p_slug)) then
        return lower(p_slug);
    end if;
    raise exception using
        errcode = 'PRPNF',
        message = format('no provider %s', quote_literal(p_slug)),
        detail = jsonb_build_object(
            'parameter', 'provider',
            'did_you_mean', (
                select coalesce(jsonb_agg(s.slug order by s.score desc, s.slug), '[]'::jsonb)
                from (
                    select p.slug,
                           greatest(public.similarity(t.text, p.slug),
                                    public.similarity(t.text, lower(p.name))) as score
                    from pricing.providers as p, (select lower(left(p_slug, 64)) as text) as t
                    order by 2 desc, 1
                    limit 5
                ) as s
                where s.score >= 0.2))::text,
        hint = 'use one of did_you_mean; provider slugs are the part of a model id before the colon';
end
$$;

-- api._price_row(price, as_of): one price row as served.
create function api._price_row(p pricing.prices, p_as_of timestamptz)
returns jsonb
language sql stable
as $$
    select jsonb_build_object(
        'channel', p.channel,
        'component', p.component,
        'tier', p.tier,
        'usd_per_1m', api._dec(p.usd_per_1m),
        'unit', 'usd_per_1m_tokens',
        'valid_from', p.valid_from,
        'valid_to', p.valid_to,
        'last_verified_at', api._ts(p.last_verified_at),
        'is_stale', api._is_stale(p.last_verified_at, p_as_of),
        'source', p.source)
$$;

-- api._channel_prices(day, models): per model of `models` and channel, the
-- standard-tier prices in effect on `day`, with the oldest last_verified_at of the three, and the
-- channel's rank as the model's reference channel (1 = the reference): the
-- official channel when it has both an input and an output price, else the
-- channel with the lowest blended price among those with both; a model priced
-- on no channel with both falls back to official, then to the spec's channel
-- order. Plain SQL (no SET, no SECURITY DEFINER) so that it is inlined, and
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
                        c.channel = 'official' desc, c.blended_usd asc nulls last, c.channel)
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
    context_window integer, input_usd numeric, output_usd numeric, blended_usd numeric,
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
           m.context_window, s.input_usd, s.output_usd, s.blended_usd,
           coalesce(s.input_usd, 'Infinity'),
           coalesce(s.output_usd, 'Infinity'),
           coalesce(s.blended_usd, 'Infinity'),
           -coalesce(m.context_window, 0)::numeric,
           coalesce(-extract(epoch from m.updated_at), 'Infinity'),  -- unknown last
           jsonb_build_object(
               'id', m.id,
               'name', m.name,
               'provider', m.provider,
               'modality', m.modality,
               'input_modalities', to_jsonb(m.input_modalities),
               'output_modalities', to_jsonb(m.output_modalities),
               'status', m.status,
               'context_window', m.context_window,
               'max_output_tokens', m.max_output_tokens,
               'updated_at', api._ts(m.updated_at),
               'price', api._price_summary(s.channel, s.input_usd, s.output_usd, s.cached_input_usd,
                                           s.blended_usd, s.last_verified_at, p_as_of))
    from scoped as s
    join pricing.models as m on m.id = s.model_id
$$;

-- api._search_text(model): what the free-text query searches for a model:
-- lower-case id, name and aliases.
create function api._search_text(p_model text)
returns text
language sql stable
as $$
    select lower(concat_ws(' ', m.id, m.name,
                           (select string_agg(a.alias, ' ' order by a.alias)
                            from pricing.aliases as a where a.model_id = m.id)))
    from pricing.models as m
    where m.id = p_model
$$;

-- api._event_item(event, model_name, published_at): one change event as served
-- by /changes, the feeds, history (granularity=changes) and the card's
-- history_summary, given the name of its model and the as_of of its publish
-- (the caller joins pricing.models and pricing.publishes, so that this is
-- inlined). Prices in old_value/new_value are decimal strings in USD per 1M
-- tokens (unit says so).
create function api._event_item(e pricing.events, p_model_name text, p_published_at timestamptz)
returns jsonb
language sql stable
as $$
    select jsonb_build_object(
        'id', e.id,
        'event_type', e.event_type,
        'model_id', e.model_id,
        'model_name', p_model_name,
        'provider', e.provider,
        'channel', e.channel,
        'component', e.component,
        'tier', e.tier,
        'old_value', e.old_value,
        'new_value', e.new_value,
        'unit', case
            when e.event_type in ('price_change', 'price_change_scheduled') then 'usd_per_1m_tokens'
            when e.event_type = 'limit_change' then 'tokens'
        end,
        'change_pct', case
            when e.event_type in ('price_change', 'price_change_scheduled')
                 and e.old_value ~ '^[0-9.]+$' and e.new_value ~ '^[0-9.]+$'
                 and e.old_value::numeric > 0
                then api._dec(round((e.new_value::numeric - e.old_value::numeric) * 100 / e.old_value::numeric, 2))
        end,
        'significance', e.significance,
        'effective_date', e.effective_date,
        'published_at', api._ts(p_published_at),
        'detail', e.detail)
$$;

-- api._benchmarks(): the benchmark names compare accepts: 'aggregate' first,
-- then every benchmark with a published score, by name.
-- compare lists them when it refuses a name.
create function api._benchmarks()
returns text[]
language sql stable security definer
set search_path = pricing, pg_temp
as $$
    select array['aggregate'] || coalesce(array_agg(distinct b.benchmark order by b.benchmark), '{}')
    from pricing.benchmarks as b
$$;

-- api._benchmark_scores(models, benchmark): the score of each model of
-- `models` that has one (models without a score have no row).
-- 'aggregate' = the model's Arena overall rating (benchmark arena_overall) as a
-- percentage of the best arena_overall rating among all published models,
-- rounded to 2 decimals: 100 is the top-rated model, 90 a model rated 10 %
-- below it. Any other name: the published score as is. Plain SQL, inlined
-- into the caller's query.
create function api._benchmark_scores(p_models text [], p_benchmark text)
returns table (model_id text, score numeric)
language sql stable
as $$
    select b.model_id, round(100 * b.score / best.score, 2)
    from pricing.benchmarks as b
    cross join (
        select max(x.score) as score from pricing.benchmarks as x where x.benchmark = 'arena_overall'
    ) as best
    where p_benchmark = 'aggregate'
      and b.model_id = any (p_models) and b.benchmark = 'arena_overall' and best.score > 0
    union all
    select b.model_id, b.score
    from pricing.benchmarks as b
    where p_benchmark <> 'aggregate'
      and b.model_id = any (p_models) and b.benchmark = p_benchmark
$$;

-- api._window(since, until, until_given): checks a date window of at most 365
-- days and returns its bounds: since defaults to until - 365 days, until to
-- today (UTC). When until was not given, `upper` is open (infinity) so that
-- already published future-dated events (scheduled price changes) are included.
-- Errors: PRARG since after until, PRWIN window over 365 days.
create function api._window(p_since date, p_until date)
returns table (lower date, upper date, last_day date)
language plpgsql stable
as $$
declare
    v_today date := (now() at time zone 'UTC')::date;
    v_until date := coalesce(p_until, v_today);
    v_since date := coalesce(p_since, coalesce(p_until, v_today) - 365);
begin
    if v_since > v_until then
        perform api._raise_invalid('since',
            format('since (%s) is after until (%s)', v_since, v_until),
            'a date on or before until (until defaults to today, UTC)');
    end if;
    if v_until - v_since > 365 then
        raise exception using
            errcode = 'PRWIN',
            message = format('the window %s..%s spans %s days; at most 365 are allowed per call',
                             v_since, v_until, v_until - v_since),
            detail = jsonb_build_object('parameter', 'since', 'max_days', 365,
                                        'days', v_until - v_since)::text,
            hint = 'split the range into windows of at most 365 days (since..until) and make one call per window';
    end if;
    return query select v_since, case when p_until is null then 'infinity'::date else v_until end, v_until;
end
$$;
