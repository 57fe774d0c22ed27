-- `pricing sync`'s side of schema publish (server/src/publish/sync.rs): its
-- guard rails, its lock and the record of each run.

-- publish.served_prices(day): the standard price rows in effect on `day`.
-- `pricing sync` compares them before and after a publish, inside its
-- transaction, to refuse one that takes away or moves too much
-- (server/src/publish/mod.rs, check_guard).
create function publish.served_prices(p_day date)
returns table (model_id text, channel pricing.channel, component pricing.component,
               tier pricing.service_tier, usd_per_1m numeric)
language sql stable
as $$
    select p.model_id, p.channel, p.component, p.tier, p.usd_per_1m
    from pricing.prices as p
    where p.valid_from <= p_day and (p.valid_to is null or p.valid_to > p_day)
$$;

-- publish.sync_lock(wait): takes the session lock that lets one `pricing
-- sync` run at a time across every process on the database: waits for it
-- (`serve --sync-every`) or returns false at once when another session holds
-- it (`pricing sync`). Released by publish.sync_unlock() or when the session
-- ends.
create function publish.sync_lock(p_wait boolean)
returns boolean
language plpgsql volatile
as $$
begin
    if p_wait then
        perform pg_advisory_lock(32503137342287986);  -- "sync_pr"
        return true;
    end if;
    return pg_try_advisory_lock(32503137342287986);
end
$$;

-- publish.sync_unlock(): releases the lock publish.sync_lock() took.
create function publish.sync_unlock()
returns void
language sql volatile
as $$
    select pg_advisory_unlock(32503137342287986);
$$;

-- publish.record_sync(started_at, ok, message, published_as_of, runner): the
-- record of a sync run that held the lock (migrations/V12__sync_runs.sql),
-- finished now; published_as_of is the time of the publish it made, null for
-- none. GET /healthz shows the newest (api.last_sync, sql/38_last_sync.sql).
create function publish.record_sync(
    p_started_at timestamptz, p_ok boolean, p_message text, p_published_as_of timestamptz,
    p_runner text
)
returns void
language sql volatile
as $$
    insert into pricing.sync_runs (started_at, finished_at, ok, message, published, runner)
    values (p_started_at, clock_timestamp(), p_ok, p_message,
            (select p.id from pricing.publishes as p where p.as_of = p_published_as_of), p_runner);
$$;
