-- Webhook subscriptions of a key holder: POST, GET and DELETE
-- /api/v1/webhooks (docs/webhooks.md). The server has checked the key, the
-- URL (scheme, length, where it resolves), the event types and the
-- significance; the models and the provider are resolved here. A key sees and
-- removes only its own subscriptions.
-- Errors: PRMNF unknown model, PRPNF unknown provider (did_you_mean); PRARG
-- two entries naming one model; PRLIM the key's subscriptions are at their
-- limit; PRWNF no such subscription of this key.

-- api._webhook_item(webhook, recent): one subscription as the API shows it
-- (never its secret), with its deliveries by status and its `recent` newest
-- deliveries, newest first.
create function api._webhook_item(w pricing.webhooks, p_recent integer)
returns jsonb
language sql stable
as $$
    select jsonb_build_object(
        'id', w.id,
        'url', w.url,
        'model', to_jsonb(w.models),
        'provider', w.provider,
        'event_type', to_jsonb(w.event_types),
        'min_significance', w.min_significance,
        'created_at', api._ts(w.created_at),
        'deliveries', jsonb_build_object(
            'pending', (select count(*) from pricing.webhook_deliveries as d
                        where d.webhook_id = w.id and d.status = 'pending'),
            'delivered', (select count(*) from pricing.webhook_deliveries as d
                          where d.webhook_id = w.id and d.status = 'delivered'),
            'failed', (select count(*) from pricing.webhook_deliveries as d
                       where d.webhook_id = w.id and d.status = 'failed'),
            'recent', (
                select coalesce(jsonb_agg(jsonb_build_object(
                           'id', d.id,
                           'message_id', d.message_id,
                           'type', d.payload ->> 'type',
                           'event_id', d.event_id,
                           'days_left', d.days_left,
                           'status', d.status,
                           'attempts', d.attempts,
                           'last_status', d.last_status,
                           'last_error', d.last_error,
                           'created_at', api._ts(d.created_at),
                           'last_attempt_at', api._ts(d.last_attempt_at),
                           'next_attempt_at', case when d.status = 'pending' then api._ts(d.next_attempt_at) end,
                           'finished_at', api._ts(d.finished_at)) order by d.id desc), '[]'::jsonb)
                from (select x.* from pricing.webhook_deliveries as x
                      where x.webhook_id = w.id order by x.id desc limit p_recent) as d)))
$$;

-- api.create_webhook(key_id, url, models, provider, event_types,
-- min_significance, secret, max_per_key): stores a subscription of the key
-- whose id is key_id; it is owed the events of publishes after the newest one
-- now. models (up to 50 ids in any resolving form), provider, event_types:
-- null = any. Returns {"data": subscription} (without the secret, which the
-- server adds to this one answer). Raises PRLIM when the key has max_per_key
-- subscriptions already.
create function api.create_webhook(
    p_key_id bigint, p_url text, p_models text [], p_provider text, p_event_types text [],
    p_min_significance integer, p_secret text, p_max_per_key integer
)
returns jsonb
language plpgsql
as $$
declare
    v_models text[];
    v_provider text;
    v_row pricing.webhooks;
begin
    -- one registration at a time per key, so that the limit holds
    perform from pricing.api_keys as k where k.id = p_key_id for update;
    if (select count(*) from pricing.webhooks as w where w.key_id = p_key_id) >= p_max_per_key then
        raise exception using
            errcode = 'PRLIM',
            message = format('this key has %s webhook subscriptions, the most a key may have', p_max_per_key),
            detail = jsonb_build_object('limit', p_max_per_key)::text,
            hint = 'remove one (DELETE /api/v1/webhooks/{id}), or widen the filters of one instead of adding another';
    end if;
    if p_models is not null then
        v_models := api._resolve_models(p_models, 'model', 'a list of up to 50 models, each once');
    end if;
    if p_provider is not null then
        v_provider := api._resolve_provider(p_provider);
    end if;
    insert into pricing.webhooks as w (
        key_id, url, models, provider, event_types, min_significance, secret, seen_publish
    )
    values (
        p_key_id, p_url, v_models, v_provider, p_event_types::pricing.event_type[],
        coalesce(p_min_significance, 0), p_secret,
        coalesce((select s.id from api._served(false) as s), 0)
    )
    returning w.* into v_row;
    return jsonb_build_object('data', api._webhook_item(v_row, 0));
end
$$;

-- api.list_webhooks(key_id, recent): the key's subscriptions, oldest first,
-- each with its `recent` newest deliveries. Returns {"data": {"items"}}.
create function api.list_webhooks(p_key_id bigint, p_recent integer)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('data', jsonb_build_object(
        'items', coalesce(jsonb_agg(api._webhook_item(w, p_recent) order by w.id), '[]'::jsonb)))
    from pricing.webhooks as w
    where w.key_id = p_key_id
$$;

-- api.delete_webhook(key_id, id): removes the key's subscription `id` and the
-- deliveries still owed to it (no attempt starts after this returns; one in
-- flight finishes, unrecorded). Returns
-- {"data": subscription as it was}. Raises PRWNF when the key has no such
-- subscription (another key's is not found either).
create function api.delete_webhook(p_key_id bigint, p_id bigint)
returns jsonb
language plpgsql
as $$
declare
    v_item jsonb;
begin
    select api._webhook_item(w, 0) into v_item
    from pricing.webhooks as w
    where w.id = p_id and w.key_id = p_key_id
    for update;
    if v_item is null then
        raise exception using
            errcode = 'PRWNF',
            message = format('this key has no webhook subscription %s', p_id),
            detail = jsonb_build_object('parameter', 'webhook_id')::text,
            hint = 'GET /api/v1/webhooks lists the subscriptions of this key';
    end if;
    delete from pricing.webhooks as w where w.id = p_id;
    return jsonb_build_object('data', v_item);
end
$$;
