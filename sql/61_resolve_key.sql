-- api.resolve_key(lookup, sha256): the key with this lookup prefix and SHA-256
-- (hex), or no row. Revoked and expired keys are returned too, so that the
-- server can tell the client why its key is refused. metered is false for a
-- plan with neither quota nor burst limit (`internal`): such requests are
-- never sent to api.admit().
create function api.resolve_key(p_lookup text, p_sha256 text)
returns table (
    key_id bigint, plan text, metered boolean, expires_at timestamptz, revoked_at timestamptz
)
language sql stable
as $$
    select k.id, k.plan, (p.quota is not null or p.burst_per_second is not null),
           k.expires_at, k.revoked_at
    from pricing.api_keys as k
    join pricing.plans as p on p.name = k.plan
    where k.lookup_prefix = p_lookup
      and k.key_sha256 = p_sha256
$$;
