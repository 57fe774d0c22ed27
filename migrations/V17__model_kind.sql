-- What each model is for (docs/snapshot-format.md, `kind`; the rule that
-- decides is tools/dataset/kinds.py): chat (text generation), embedding,
-- rerank, image (generation or editing), audio (speech-to-text, text-to-speech,
-- realtime audio), video, ocr, moderation. Null where a snapshot does not say
-- (one written before kinds existed): unknown, never a guess. The listing
-- carries it to filter GET /api/v1/models?kind= and to pick the default
-- models of POST /api/v1/estimate (the cheapest active chat models);
-- publish.refresh_listing() (sql/55_listing.sql) fills it, and runs whenever
-- schema api is re-created, so right after this migration.
create type pricing.model_kind as enum (
    'chat', 'embedding', 'rerank', 'image', 'audio', 'video', 'ocr', 'moderation'
);
alter table pricing.models add column kind pricing.model_kind;
alter table pricing.model_listing add column kind pricing.model_kind;
