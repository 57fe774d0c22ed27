//! Integration tests: one binary, a real PostgreSQL started by testcontainers
//! once for the whole binary, and a fresh database per test cloned from a
//! template that was migrated once. Tests run in parallel and share nothing.
//!
//! The image is `postgres:15` unless `PRICING_TEST_PG_IMAGE` names another
//! (`scripts/build-postgres-image.sh` builds one from the host's PostgreSQL
//! where no registry is reachable).

mod admission;
mod bounds;
mod cache;
mod changes;
mod cli;
mod clients;
mod compare;
mod conditional;
mod contract;
mod cost;
mod dataset;
mod estimate;
mod event_sources;
mod feeds;
mod free_keys;
mod health;
mod helpers;
mod history;
mod keys;
mod kinds;
mod launch;
mod lifecycle;
mod list_models;
mod list_params;
mod mcp;
mod metrics;
mod migrate;
mod model_card;
mod openapi;
mod publish;
mod quota;
mod regional;
mod replicas;
mod slash_ids;
mod sql_functions;
mod sync;
mod truth;
mod unavailable;
mod watch;
mod webhooks;
