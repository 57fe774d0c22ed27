-- Trigram indexes for did_you_mean (api._model_suggestions, sql/24_resolution.sql):
-- an unknown model id is compared with every name and alias; with these
-- indexes pg_trgm's similarity operator finds the candidates instead of a
-- similarity computed for each of them. (models_search_trgm_idx and
-- aliases_trgm_idx of V1 index other expressions: id || ' ' || name, and the
-- alias as written.)
create index models_name_trgm_idx on pricing.models using gin (lower(name) gin_trgm_ops);
create index aliases_lower_trgm_idx on pricing.aliases using gin (lower(alias) gin_trgm_ops);
