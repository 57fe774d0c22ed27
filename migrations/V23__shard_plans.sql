-- The plans a shard's holder admits in memory, as it read them when it
-- claimed the lease (api.claim_shards): api.admit_batch defers to the holder
-- only the subjects of those plans, and counts every other subject of the
-- shard itself (a key on a plan with a larger burst, a key request), also
-- while a change of the plans has not reached the holder yet. Null when
-- nobody holds the shard.
alter table pricing.admission_shards add column plans text[];
-- A lease a server of the previous version holds: that server admits in
-- memory the plans with a burst under 10 a second (its rule, as
-- api._in_memory has it now), until it gives the lease up or lets it end.
update pricing.admission_shards
set plans = array(select p.name from pricing.plans as p
                  where p.burst_per_second is not null and p.burst_per_second < 10
                  order by p.name)
where owner is not null;
