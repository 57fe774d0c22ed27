-- api.last_sync(): the newest `pricing sync` run as {at, ok, message} (`at`
-- when it finished), or null when none has run. For GET /healthz.
create function api.last_sync()
returns jsonb
language sql stable
as $$
    select jsonb_build_object('at', api._ts(s.finished_at), 'ok', s.ok, 'message', s.message)
    from pricing.sync_runs as s
    order by s.finished_at desc, s.id desc
    limit 1
$$;
