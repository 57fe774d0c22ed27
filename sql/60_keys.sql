-- Schema `keys`: issuing, listing and revoking API keys, and the plans' limits.
-- Called by `pricing keys ...` on the owner's connection; not granted to the
-- web role, which can only resolve keys (api.resolve_key). A key itself never
-- reaches the database: only its lookup prefix and its SHA-256 (hex).
create schema keys;

-- keys.issue(lookup, sha256, plan, label, expires_at): stores a new key.
-- Returns (key_id, created_at). Raises 22023 for a plan keys are not issued on
-- (`anonymous`, `key_requests`: not `issuable`) or an unknown plan, and for an
-- expiry that is not in the future; 23505 when the lookup prefix is taken (the
-- caller draws a new key).
create function keys.issue(
    p_lookup text, p_sha256 text, p_plan text, p_label text, p_expires_at timestamptz
)
returns table (key_id bigint, created_at timestamptz)
language plpgsql
set search_path = pricing, pg_temp
as $$
begin
    if not exists (select from pricing.plans as p where p.name = p_plan and p.issuable) then
        raise exception 'there is no key plan named %', p_plan
            using errcode = '22023',
                  hint = 'issue keys on one of: ' || (
                      select string_agg(p.name, ', ' order by p.name)
                      from pricing.plans as p where p.issuable);
    end if;
    if p_expires_at is not null and p_expires_at <= now() then
        raise exception 'the expiry % is not in the future', p_expires_at
            using errcode = '22023';
    end if;
    return query
    insert into pricing.api_keys as k (lookup_prefix, key_sha256, plan, label, expires_at)
    values (p_lookup, p_sha256, p_plan, p_label, p_expires_at)
    returning k.id, k.created_at;
end
$$;

-- keys.revoke(lookup): revokes the key with this lookup prefix (idempotent).
-- Returns (revoked_at, newly): newly is false when it was revoked before.
-- Raises P0002 when no key has this prefix.
create function keys.revoke(p_lookup text)
returns table (revoked_at timestamptz, newly boolean)
language plpgsql
set search_path = pricing, pg_temp
as $$
begin
    return query
    update pricing.api_keys as k
    set revoked_at = coalesce(k.revoked_at, now())
    where k.lookup_prefix = p_lookup
    returning k.revoked_at, k.revoked_at = now();
    if not found then
        raise exception 'no API key has the prefix %', p_lookup
            using errcode = 'P0002',
                  hint = 'see `pricing keys list` for the prefixes';
    end if;
end
$$;

-- keys.list(): every key, newest first, with its use of the current quota
-- window (null when the plan has no quota or the key was not used in it),
-- and for a key issued on request that was never used, when it expires
-- unless used (unused_expires_at; null once used, and on other keys).
-- Never returns a key or its hash.
create function keys.list()
returns table (
    lookup_prefix text, plan text, label text, created_at timestamptz,
    expires_at timestamptz, revoked_at timestamptz, used integer, quota integer,
    window_end timestamptz, unused_expires_at timestamptz
)
language sql stable
set search_path = pricing, pg_temp
as $$
    select k.lookup_prefix, k.plan, k.label, k.created_at, k.expires_at, k.revoked_at,
           w.used, p.quota, w.window_end,
           case when k.first_used_at is null then k.unused_expires_at end
    from pricing.api_keys as k
    join pricing.plans as p on p.name = k.plan
    left join pricing.admission_counters as w
      on w.subject = 'key:' || k.id and w.window_end > now() and w.quota is not null
    order by k.created_at desc, k.id desc
$$;

-- keys.plans(): the plans and their limits (null: unlimited), by name.
create function keys.plans()
returns table (name text, quota integer, window_seconds integer, burst_per_second integer)
language sql stable
set search_path = pricing, pg_temp
as $$
    select p.name, p.quota, p.window_seconds, p.burst_per_second
    from pricing.plans as p
    order by p.name
$$;

-- keys.set_plan(name, quota, window_seconds, burst_per_second): changes a
-- plan's limits; null quota or burst means unlimited. Takes effect at once for
-- accounting (api.admit reads the plan on every call). Raises P0002 for an
-- unknown plan, 23514 for a value below 1.
create function keys.set_plan(
    p_name text, p_quota integer, p_window_seconds integer, p_burst_per_second integer
)
returns void
language plpgsql
set search_path = pricing, pg_temp
as $$
begin
    update pricing.plans as p
    set quota = p_quota, window_seconds = p_window_seconds, burst_per_second = p_burst_per_second
    where p.name = p_name;
    if not found then
        raise exception 'there is no plan named %', p_name
            using errcode = 'P0002', hint = 'see `pricing keys plans`';
    end if;
end
$$;
