-- api.compare(ids, metrics, benchmark): GET /api/v1/compare. Returns
--   {"as_of", "publish", "data": {"benchmark", "metrics", "rows"}, "pagination"}.
-- ids: 2-5 model ids (canonical, provider API id or renamed slug), distinct
-- after resolution; rows come in the order of ids. metrics: any of
-- price_input, price_output, price_blended, context_window, benchmark_score,
-- price_per_point (null = all). Prices are the standard-tier prices of the
-- model's reference channel (see api._channel_prices) in effect on the served
-- publish's day. benchmark: 'aggregate' (api._benchmark_scores) or a published
-- benchmark name; a model without a score gets null.
-- price_per_point = blended price / benchmark score (USD per 1M tokens per
-- point), 6 decimals; null without a price or a positive score. Each row
-- states the model's kind (chat, embedding, ...), so a price per point of
-- models made for different work is not read as like for like.
-- Errors: PRMNF an unknown id (did_you_mean for it), PRARG duplicates or an
-- unknown benchmark (the benchmarks are data: only the database knows them).
-- Enums and ranges of the arguments: as the server checked them (docs/api.md).
-- Plans: generic (plan_cache_mode), here and in the helpers it calls. Every
-- query looks models up by id, so a plan for the values at hand is no better,
-- but left to choose the planner keeps making them, and planning the rows
-- query (with api._channel_prices and api._benchmark_scores inlined) costs
-- more than running it.
create function api.compare(p_ids text[], p_metrics text[], p_benchmark text)
returns jsonb
language plpgsql stable
set plan_cache_mode = force_generic_plan
as $$
declare
    v_served record;
    v_all_metrics constant text[] := array['price_input', 'price_output', 'price_blended',
                                           'context_window', 'benchmark_score', 'price_per_point'];
    v_metrics text[] := coalesce(p_metrics, v_all_metrics);
    v_benchmark text := coalesce(p_benchmark, 'aggregate');
    v_resolved text[];
    v_rows jsonb;
begin
    select * into v_served from api._served();
    if v_benchmark <> 'aggregate'
       and not exists (select from pricing.benchmarks as b where b.benchmark = v_benchmark) then
        perform api._raise_invalid('benchmark', format('unknown benchmark %L', v_benchmark),
            'one of ' || array_to_string(api._benchmarks(), ', '));
    end if;
    v_resolved := api._resolve_models(p_ids, 'ids', 'a comma-separated list of 2 to 5 different models');

    select jsonb_agg(r.row order by r.n) into v_rows
    from (
        select x.n, (jsonb_build_object(
                   'id', m.id, 'requested_id', p_ids[x.n], 'name', m.name, 'provider', m.provider,
                   'kind', m.kind, 'status', m.status, 'channel', c.channel,
                   'last_verified_at', api._ts(c.last_verified_at),
                   'is_stale', api._is_stale(c.last_verified_at, v_served.as_of)))
               || (select coalesce(jsonb_object_agg(v.metric, v.value), '{}'::jsonb)
                   from (values
                       ('price_input', to_jsonb(api._dec(c.input_usd))),
                       ('price_output', to_jsonb(api._dec(c.output_usd))),
                       ('price_blended', to_jsonb(api._dec(c.blended_usd))),
                       ('context_window', to_jsonb(m.context_window)),
                       ('benchmark_score', to_jsonb(api._dec(s.score))),
                       ('price_per_point', to_jsonb(case when s.score > 0 then
                           api._dec(round(c.blended_usd / s.score, 6)) end))
                   ) as v (metric, value)
                   where v.metric = any (v_metrics)) as row
        from unnest(v_resolved) with ordinality as x (id, n)
        join pricing.models as m on m.id = x.id
        left join api._channel_prices(v_served.day, v_resolved) as c
            on c.model_id = m.id and c.reference_rank = 1
        left join api._benchmark_scores(v_resolved, v_benchmark) as s on s.model_id = m.id
    ) as r;

    return api._envelope(
        v_served.id, v_served.as_of,
        jsonb_build_object(
            'benchmark', v_benchmark,
            'metrics', to_jsonb(v_metrics),
            'unit', 'usd_per_1m_tokens',
            'rows', v_rows),
        api._pagination(cardinality(v_resolved), cardinality(v_resolved), null),
        case
            when exists (select from jsonb_array_elements(v_rows) as e
                         where e ? 'benchmark_score' and e -> 'benchmark_score' = 'null'::jsonb)
                then format('some models have no %s score, so their score-based metrics are null', v_benchmark)
        end);
end
$$;
