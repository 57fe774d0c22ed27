//! The enumerations of the spec as the query parameters spell them (the
//! OpenAPI description lists the same values, checked by a test), and the
//! envelope's schema version.

pub use crate::publish::snapshot::{CHANNELS, KINDS};

/// The envelope's `schema_version` (spec part 9).
pub const SCHEMA_VERSION: &str = "1";

/// `modality` (spec 2.3).
pub const MODALITIES: &[&str] = &["text", "image", "audio", "video"];
/// `status` of GET /models (spec 3).
pub const STATUSES: &[&str] = &["active", "deprecated", "retired", "all"];
/// `sort` of GET /models (spec 4.1).
pub const SORTS: &[&str] = &[
    "price_input_asc",
    "price_output_asc",
    "price_blended_asc",
    "context_desc",
    "updated_desc",
];
/// `include` of the model card (spec 4.2).
pub const INCLUDES: &[&str] = &[
    "pricing",
    "deprecation",
    "benchmarks",
    "aliases",
    "history_summary",
];
/// `component` of the history (spec 4.3).
pub const COMPONENTS: &[&str] = &["input", "output", "cached_input", "all"];
/// `granularity` of the history (spec 4.3).
pub const GRANULARITIES: &[&str] = &["changes", "daily"];
/// `metrics` of compare (spec 4.4).
pub const METRICS: &[&str] = &[
    "price_input",
    "price_output",
    "price_blended",
    "context_window",
    "benchmark_score",
    "price_per_point",
];
/// `event_type` of the changes feed (spec 4.6).
pub const EVENT_TYPES: &[&str] = &[
    "price_change",
    "price_change_scheduled",
    "deprecation",
    "retirement",
    "model_launch",
    "limit_change",
    "all",
];
