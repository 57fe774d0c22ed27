-- Free keys on request (POST /api/v1/keys, docs/keys.md, "Keys on request").
--
-- Plans keys are issued on are marked `issuable`; the others count callers
-- that have no key: `anonymous` (the client address's requests) and
-- `key_requests`, the keys an address may ask for: 5 a UTC day, counted by
-- api.admit_batch like any plan's quota, for the subject
-- 'keys-for:<the address's anonymous subject>'.
alter table pricing.plans add column issuable boolean not null default true;
update pricing.plans set issuable = false where name = 'anonymous';
insert into pricing.plans (name, quota, window_seconds, burst_per_second, issuable)
values ('key_requests', 5, 86400, null, false);

-- A key issued on request that is never used stops working at
-- unused_expires_at; its first use (first_used_at, set by api.resolve_key)
-- lifts that expiry. Null unused_expires_at: no such expiry (keys the
-- operator issues).
alter table pricing.api_keys
    add column unused_expires_at timestamptz,
    add column first_used_at timestamptz;
