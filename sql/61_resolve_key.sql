-- api.resolve_key(lookup, sha256): the key with this lookup prefix and SHA-256
-- (hex), or no row. Revoked and expired keys are returned too, so that the
-- server can tell the client why its key is refused. metered is false for a
-- plan with neither quota nor burst limit (`internal`): such requests are
-- never sent to api.admit().
-- A key's first resolution records its first use (first_used_at), which lifts
-- the expiry of a key issued on request that is never used
-- (unused_expires_at, api.issue_key_on_request): until then, expires_at is
-- the earlier of the two. A key past that expiry is not marked used.
-- Servers cache the answer (30 s), so this runs about once per key, server
-- and half minute, and writes at most once per key.
create function api.resolve_key(p_lookup text, p_sha256 text)
returns table (
    key_id bigint, plan text, metered boolean, expires_at timestamptz, revoked_at timestamptz
)
language sql volatile
as $$
    with first_use as (
        update pricing.api_keys as k
        set first_used_at = now()
        where k.lookup_prefix = p_lookup
          and k.key_sha256 = p_sha256
          and k.first_used_at is null
          and k.revoked_at is null
          and (k.unused_expires_at is null or k.unused_expires_at > now())
        returning k.id
    )
    select k.id, k.plan, (p.quota is not null or p.burst_per_second is not null),
           case
               when k.first_used_at is null and not exists (select from first_use)
                   then least(k.expires_at, k.unused_expires_at)
               else k.expires_at
           end,
           k.revoked_at
    from pricing.api_keys as k
    join pricing.plans as p on p.name = k.plan
    where k.lookup_prefix = p_lookup
      and k.key_sha256 = p_sha256
$$;
