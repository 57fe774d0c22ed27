-- Resolution: from what a client names (a model id, alias or provider API id,
-- a provider slug, a benchmark name) to what is stored, with did_you_mean
-- suggestions when nothing matches. Errors: PRMNF, PRPNF.
-- Names start with an underscore: the web role may not call these helpers
-- (sql/99_grants.sql); the public api functions run them with the owner's
-- rights.

-- api._model_suggestions(text): up to 5 canonical model ids that look like the
-- text (trigram similarity over ids, names and aliases, at least 0.2), best
-- first. Only the text's first 64 characters are compared (longer than any id
-- or alias), so the cost does not grow with the input. A text that names a
-- provider before its colon is compared with that provider's models only
-- (`anthropic:claude-opus-9` with Anthropic's few dozen, not all of them);
-- otherwise pg_trgm's operators find the candidates through the trigram
-- indexes of V19. At most 2 calls run at once across every server
-- (api._suggestion_slot): a call beyond them answers no suggestions rather
-- than queue, so a burst of unknown ids cannot take the CPU and connections
-- other requests need; the 404 stays a 404.
create function api._model_suggestions(p_text text)
returns jsonb
language plpgsql stable
set pg_trgm.similarity_threshold = 0.2
set pg_trgm.word_similarity_threshold = 0.2
-- the tables are small enough that the planner would scan them whole,
-- computing a similarity per row; the trigram indexes visit the candidates
set enable_seqscan = off
as $$
declare
    v_text text := lower(left(coalesce(p_text, ''), 64));
    v_part text := split_part(lower(left(coalesce(p_text, ''), 64)), ':', 2);
    v_provider text;
begin
    if not api._suggestion_slot() then
        return '[]'::jsonb;
    end if;
    select p.slug into v_provider from pricing.providers as p where p.slug = split_part(v_text, ':', 1);
    if v_provider is not null then
        return (
            select coalesce(jsonb_agg(s.id order by s.score desc, s.id), '[]'::jsonb)
            from (
                select m.id, x.score
                from pricing.models as m
                cross join lateral (
                    select greatest(public.similarity(v_text, m.id),
                                    public.similarity(v_text, lower(m.name)),
                                    public.word_similarity(v_part, m.id),
                                    (select max(public.similarity(v_text, lower(a.alias)))
                                     from pricing.aliases as a where a.model_id = m.id)) as score
                ) as x
                where m.provider = v_provider and x.score >= 0.2
                order by x.score desc, m.id
                limit 5
            ) as s);
    end if;
    return (
        select coalesce(jsonb_agg(s.id order by s.score desc, s.id), '[]'::jsonb)
        from (
            select c.id, max(c.score) as score
            from (
                select m.id, public.similarity(v_text, m.id) as score
                from pricing.models as m
                where m.id operator(public.%) v_text
                union all
                select m.id, public.similarity(v_text, lower(m.name))
                from pricing.models as m
                where lower(m.name) operator(public.%) v_text
                union all
                select m.id, public.word_similarity(v_part, m.id)
                from pricing.models as m
                where v_part operator(public.<%) m.id
                union all
                select a.model_id, public.similarity(v_text, lower(a.alias))
                from pricing.aliases as a
                where lower(a.alias) operator(public.%) v_text
            ) as c
            group by c.id
            order by max(c.score) desc, c.id
            limit 5
        ) as s);
end
$$;

-- api._suggestion_slot(): takes one of the 2 did_you_mean slots (a
-- transaction advisory lock, released when the calling statement's
-- transaction ends); false when both are taken.
create function api._suggestion_slot()
returns boolean
language plpgsql volatile
as $$
begin
    for slot in 1 .. 2 loop
        if pg_try_advisory_xact_lock(hashtext('pricing did_you_mean'), slot) then
            return true;
        end if;
    end loop;
    return false;
end
$$;

-- api._resolve_model(text): the canonical id of a model given by canonical id,
-- provider API id (<provider>:<api id>) or renamed slug (pricing.aliases),
-- exactly or ignoring case. Raises PRMNF (MODEL_NOT_FOUND) with did_you_mean;
-- when the suggestions cannot be had within the call's statement budget (the
-- statement is cancelled while they are computed), with none: a wrong id is
-- still a 404, never a 503.
create function api._resolve_model(p_id text, p_parameter text default 'model_id')
returns text
language plpgsql stable
as $$
declare
    v_id text;
    v_suggestions jsonb;
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
        begin
            v_suggestions := api._model_suggestions(coalesce(p_id, ''));
        exception when query_canceled then
            v_suggestions := '[]'::jsonb;
        end;
        raise exception using
            errcode = 'PRMNF',
            message = format('no model %s: it is neither a model id nor a provider API id or '
                             'former slug of one', coalesce(quote_literal(p_id), 'null')),
            detail = jsonb_build_object('parameter', p_parameter,
                                        'did_you_mean', v_suggestions)::text,
            hint = 'use one of did_you_mean, or find the id with GET /api/v1/models?query=<name>';
    end if;
    return v_id;
end
$$;

-- api._resolve_models(ids, parameter, allowed): the canonical ids of `ids`,
-- in their order, each resolved by api._resolve_model (PRMNF naming
-- `parameter`). Raises PRARG when two of them name the same model; `allowed`
-- says what the parameter takes.
create function api._resolve_models(p_ids text [], p_parameter text, p_allowed text)
returns text []
language plpgsql stable
as $$
declare
    v_ids text[] := '{}';
    v_dup text;
begin
    for i in 1 .. coalesce(cardinality(p_ids), 0) loop
        v_ids := v_ids || api._resolve_model(p_ids[i], p_parameter);
    end loop;
    select x into v_dup from unnest(v_ids) as x group by x having count(*) > 1 limit 1;
    if v_dup is not null then
        perform api._raise_invalid(p_parameter,
            format('%s name the model %s more than once', p_parameter, v_dup), p_allowed);
    end if;
    return v_ids;
end
$$;

-- api._resolve_provider(slug): the slug itself when it is a provider, else
-- raises PRPNF (PROVIDER_NOT_FOUND) with did_you_mean (similar slugs and names;
-- the slug's first 64 characters are compared, so the cost does not grow with it).
create function api._resolve_provider(p_slug text)
returns text
language plpgsql stable
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

-- api._benchmarks(): the benchmark names compare accepts: 'aggregate' first,
-- then every benchmark with a published score, by name.
-- compare lists them when it refuses a name.
create function api._benchmarks()
returns text[]
language sql stable
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
