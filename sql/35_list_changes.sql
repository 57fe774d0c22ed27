-- api.list_changes(since, until, event_type, provider, min_significance, limit,
-- cursor, models): GET /api/v1/changes, and the public feeds /feeds/changes.xml
-- and /feeds/changes.json (same events, same filters). Returns
--   {"as_of", "publish", "data": {"since", "until", "items"}, "pagination"}.
-- Items: pricing.events (api._event_item), newest first: ordered by
-- (effective_date, id) descending. The window filters effective_date: since
-- defaults to until - 365 days, until to today (UTC); with until omitted,
-- already published future-dated events (scheduled price changes, shutdowns
-- announced for a later day) are listed too. models: a watch list, the events
-- of these models only (ids resolved like any model id; null = every model).
-- Errors: PRWIN window over 365 days; PRARG since after until, or two entries
-- of models naming one model; PRPNF unknown provider, PRMNF unknown model
-- (did_you_mean); PRCUR bad cursor.
-- Enums and ranges of the arguments: as the server checked them (docs/api.md).
create function api.list_changes(
    p_since date, p_until date, p_event_type text, p_provider text, p_min_significance integer,
    p_limit integer, p_cursor text, p_models text[] default null
)
returns jsonb
language plpgsql stable
as $$
declare
    v_served record;
    v_type text := nullif(coalesce(p_event_type, 'all'), 'all');
    v_provider text;
    v_models text[];
    v_min integer := coalesce(p_min_significance, 0);
    v_window record;
    v_filters jsonb;
    v_key jsonb;
    v_total bigint;
    v_ids bigint[];
    v_items jsonb;
    v_last jsonb;
begin
    select * into v_served from api._served();
    if p_provider is not null then
        v_provider := api._resolve_provider(p_provider);
    end if;
    if p_models is not null then
        v_models := api._resolve_models(p_models, 'model', 'a comma-separated list of up to 50 models, each once');
    end if;
    select * into v_window from api._window(p_since, p_until);

    v_filters := jsonb_build_object(
        'since', v_window.lower, 'until', v_window.upper, 'event_type', v_type,
        'provider', v_provider, 'min_significance', v_min, 'model', to_jsonb(v_models));
    v_key := api._cursor_read('changes', v_served.id, v_filters, p_cursor);

    -- The events that pass the filters (w), counted, and the ids of the page
    -- and of the next page's first event. EXECUTE plans this for the
    -- arguments at hand: a generic plan knows neither the window nor which
    -- filters are null, expects next to no events and sorts the whole window
    -- instead of reading events_feed_idx in order up to the limit.
    execute $q$
        with w as not materialized (
            select e.effective_date, e.id
            from pricing.events as e
            where e.effective_date between $1 and $2
              and ($3::text is null or e.event_type::text = $3)
              and ($4::text is null or e.provider = $4)
              and e.significance >= $5
              and ($8::text[] is null or e.model_id = any ($8))
        )
        select (select count(*) from w),
               array(select w.id
                     from w
                     where $6::jsonb is null or (w.effective_date, w.id) < (($6 ->> 0)::date, ($6 ->> 1)::bigint)
                     order by w.effective_date desc, w.id desc
                     limit $7)
    $q$
    into v_total, v_ids
    using v_window.lower, v_window.upper, v_type, v_provider, v_min, v_key, p_limit + 1, v_models;

    -- The items of the page, and the key of its last event when there is a
    -- next page.
    select coalesce(jsonb_agg(api._event_item(e, m.name, p.as_of) order by x.n)
                        filter (where x.n <= p_limit), '[]'::jsonb),
           jsonb_agg(jsonb_build_array(e.effective_date, e.id)) filter (where x.n = p_limit) -> 0
    into v_items, v_last
    from unnest(v_ids) with ordinality as x (id, n)
    join pricing.events as e on e.id = x.id
    join pricing.models as m on m.id = e.model_id
    join pricing.publishes as p on p.id = e.publish_id;

    return api._page(
        'changes', v_served.id, v_served.as_of, v_filters,
        jsonb_build_object(
            'since', v_window.lower,
            'until', v_window.last_day,
            'includes_scheduled', v_window.upper = 'infinity'::date,
            'items', v_items),
        v_total, v_last, cardinality(v_ids) > p_limit,
        'no events match; widen the window (at most 365 days per call) or lower min_significance');
end
$$;
