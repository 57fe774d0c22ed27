-- api.sweep_counters(): deletes quota windows that ended over a minute ago and
-- burst buckets that have been full for a minute (both the same as no row).
-- Each server calls it every few minutes; running it concurrently is harmless.
-- Rows locked by an admission in progress are skipped (they are swept next
-- time): waiting for them could deadlock with a batch of api.admit_batch,
-- which locks many subjects' rows in its own order.
-- Returns the number of rows deleted.
create function api.sweep_counters()
returns bigint
language plpgsql volatile
as $$
declare
    v_windows bigint;
    v_buckets bigint;
begin
    delete from pricing.quota_windows as w
    where w.ctid in (
        select x.ctid from pricing.quota_windows as x
        where x.window_end < now() - interval '1 minute'
        for update skip locked
    );
    get diagnostics v_windows = row_count;
    delete from pricing.burst_buckets as b
    where b.ctid in (
        select x.ctid from pricing.burst_buckets as x
        where x.tat_us < (extract(epoch from now() - interval '1 minute') * 1000000)::bigint
        for update skip locked
    );
    get diagnostics v_buckets = row_count;
    return v_windows + v_buckets;
end
$$;
