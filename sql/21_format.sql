-- Formatting: how values are written in every answer. Timestamps as RFC 3339
-- UTC text, decimals as exact strings (prices are never floats).
-- Names start with an underscore: the web role may not call these helpers
-- (sql/99_grants.sql); the public api functions run them with the owner's
-- rights.
--
-- Helpers that build values row by row are plain SQL (no SET, no SECURITY
-- DEFINER, no subquery) and no less volatile than their bodies, so that the
-- planner inlines them into the calling query: an immutable function whose
-- body is only stable (to_char, date_trunc and arithmetic on timestamptz are)
-- is never inlined, and a call that is not inlined re-plans its body in every
-- query that runs it. The same holds for the helpers of sql/22..26.

-- api._ts(t): RFC 3339 UTC text, 'Z' suffix, fractional seconds only when present.
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

-- api._envelope(publish, as_of, data, pagination, hint): the body every data
-- function answers, {"as_of", "publish", "data", "pagination", "hint"}, for
-- the publish it read (sql/10_served.sql api._served); hint may be null.
create function api._envelope(p_publish bigint, p_as_of timestamptz, p_data jsonb, p_pagination jsonb,
                              p_hint text)
returns jsonb
language sql stable
as $$
    select jsonb_build_object(
        'as_of', api._ts(p_as_of),
        'publish', p_publish,
        'data', p_data,
        'pagination', p_pagination,
        'hint', p_hint)
$$;

-- api._model_fields(model): the fields a model summary (an item of GET
-- /api/v1/models, sql/25_prices.sql api._listing_rows) and a model card
-- (sql/32_get_model.sql) both carry, written alike. The launch: its date, how
-- it is known (launch_basis: announced, maker_api, first_listed, reported,
-- source_listed), the page, release or commit that says so, and whether the
-- date is a day or a month; all null when unknown.
create function api._model_fields(m pricing.models)
returns jsonb
language sql stable
as $$
    select jsonb_build_object(
        'id', m.id,
        'name', m.name,
        'kind', m.kind,
        'modality', m.modality,
        'input_modalities', to_jsonb(m.input_modalities),
        'output_modalities', to_jsonb(m.output_modalities),
        'status', m.status,
        'context_window', m.context_window,
        'max_output_tokens', m.max_output_tokens,
        'launch_date', m.launch_date,
        'launch_basis', m.launch_basis,
        'launch_source', m.launch_source,
        'launch_precision', m.launch_precision,
        'updated_at', api._ts(m.updated_at))
$$;
