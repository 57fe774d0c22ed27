-- api.issue_key_on_request(lookup, sha256, unused_expires_at): stores a key on
-- plan `free` for an anonymous caller of POST /api/v1/keys (the server has
-- counted the request against the caller's address on plan `key_requests`
-- first). The key stops working at unused_expires_at unless it is used before
-- (api.resolve_key records the first use). The web role can issue keys on no
-- other plan. Returns (key_id, created_at, plan, quota, window_seconds,
-- burst_per_second, as_of): the key, its plan and the plan's limits, and the
-- served publish's as_of for the envelope. Raises 23505 when the lookup prefix
-- is taken (the caller draws a new key), 22023 for an unused_expires_at that
-- is not in the future, PRNOD when nothing is published yet (the service does
-- not serve).
create function api.issue_key_on_request(p_lookup text, p_sha256 text, p_unused_expires_at timestamptz)
returns table (
    key_id bigint, created_at timestamptz, plan text, quota integer, window_seconds integer,
    burst_per_second integer, as_of timestamptz
)
language plpgsql volatile
as $$
declare
    v_as_of timestamptz := (select s.as_of from api._served() as s);
begin
    if p_unused_expires_at is null or p_unused_expires_at <= now() then
        raise exception 'issue_key_on_request: the expiry of an unused key must be in the future'
            using errcode = '22023';
    end if;
    return query
    with issued as (
        insert into pricing.api_keys as k (lookup_prefix, key_sha256, plan, label, unused_expires_at)
        values (p_lookup, p_sha256, 'free', 'issued on request', p_unused_expires_at)
        returning k.id, k.created_at, k.plan
    )
    select i.id, i.created_at, i.plan, p.quota, p.window_seconds, p.burst_per_second, v_as_of
    from issued as i
    join pricing.plans as p on p.name = i.plan;
end
$$;
