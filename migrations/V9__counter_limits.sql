-- The plan's limits on each counter row. api.admit_batch (sql/62_admit.sql)
-- upserts a whole batch's windows, and then its buckets, in one statement
-- each; the conflict branch of an upsert sees only the stored row and the
-- proposed one, so the proposed row carries the limit its guard checks.
-- Each holds the plan's limit as of the row's last admission; null on rows
-- made before this column.
alter table pricing.quota_windows add column quota integer;
alter table pricing.burst_buckets add column burst integer;
