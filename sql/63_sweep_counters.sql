-- api.sweep_counters(): deletes the counter rows whose window ended over a
-- minute ago and whose bucket has been full for a minute (the same as no
-- row), and the taints older than every plan's window. Each server calls it
-- every few minutes; running it concurrently is harmless. Rows locked by an
-- admission in progress are skipped (they are swept next time): waiting for
-- them could deadlock with a batch of api.admit_batch, which locks many
-- subjects' rows in its own order. Returns the number of counter rows
-- deleted.
create function api.sweep_counters()
returns bigint
language plpgsql volatile
as $$
declare
    v_deleted bigint;
begin
    delete from pricing.admission_counters as c
    where c.ctid in (
        select x.ctid from pricing.admission_counters as x
        where x.window_end < now() - interval '1 minute'
          and x.tat_us < (extract(epoch from now() - interval '1 minute') * 1000000)::bigint
        for update skip locked
    );
    get diagnostics v_deleted = row_count;
    -- Taints no window can contain any more (api._apply_taints).
    delete from pricing.admission_taints as t
    where t.at < now() - interval '1 minute'
                 - (select max(p.window_seconds) from pricing.plans as p) * interval '1 second';
    return v_deleted;
end
$$;
