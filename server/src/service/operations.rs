//! The operations of the service: one `api` function each, the same whether
//! it is reached over REST (crate::http) or as an MCP tool (crate::mcp). One
//! table names each operation's tool, path, method and parameters; the router
//! and the MCP tool list are both built from it.

use serde_json::Value;

use super::params::Query;
use super::state::AppState;
use super::{changes, compare, cost, estimate, models};
use crate::error::ApiError;

/// What an operation takes: a query (a GET), or a JSON body (a POST).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Read(Read),
    Post(Post),
}

/// The operations that take a JSON body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Post {
    EstimateCost,
    CostUsage,
}

impl Post {
    /// Its answer to a body already parsed as JSON: the whole envelope, as
    /// JSON text (written once, from typed parts: `estimate::post_envelope`).
    pub async fn run(self, state: &AppState, body: Value) -> Result<Vec<u8>, ApiError> {
        match self {
            Post::EstimateCost => estimate::estimate_envelope(state, body).await,
            Post::CostUsage => cost::cost_envelope(state, body).await,
        }
    }
}

/// The operations that read with a query (and a `{model_id}` where the path
/// has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    ListModels,
    GetModel,
    ModelHistory,
    Compare,
    ListChanges,
}

/// One operation: its MCP tool, its REST endpoint and when to use it.
#[derive(Debug)]
pub struct Operation {
    pub kind: Kind,
    /// The MCP tool's name.
    pub tool: &'static str,
    /// The REST path, as the OpenAPI document spells it.
    pub path: &'static str,
    /// The REST method, as the OpenAPI document spells it (lower case).
    pub method: &'static str,
    /// The query parameters it takes (a `{model_id}` of the path aside).
    pub params: &'static [&'static str],
    /// The MCP tool's description.
    pub description: &'static str,
}

/// Every operation.
pub const OPERATIONS: &[Operation] = &[
    Operation {
        kind: Kind::Read(Read::ListModels),
        tool: "pricing_list_models",
        path: "/api/v1/models",
        method: "get",
        params: models::LIST_PARAMS,
        description: "Search and filter token-priced AI models with their current prices (USD per 1M tokens, \
            decimal strings). Use it to find models by name, provider, kind (chat, embedding, rerank, image, \
            audio, video, ocr, moderation), modality, status, channel, context window or maximum input price, \
            sorted by price, context or last update. Paginated: pass \
            pagination.next_cursor back as `cursor` with the same filters. Twin of GET /api/v1/models.",
    },
    Operation {
        kind: Kind::Read(Read::GetModel),
        tool: "pricing_get_model",
        path: "/api/v1/models/{model_id}",
        method: "get",
        params: models::CARD_PARAMS,
        description: "The full card of one model: current prices on every channel, context window, lifecycle; \
            with `include` also every price row (all tiers, scheduled changes, and the conditional rates: \
            context-length tiers and cache writes), deprecation, benchmarks, aliases and a history summary. \
            Accepts canonical ids (openai:gpt-4o), provider API ids and renamed slugs; an unknown id returns \
            suggestions. Use it once you know which model you mean. Twin of GET /api/v1/models/{model_id}.",
    },
    Operation {
        kind: Kind::Read(Read::ModelHistory),
        tool: "pricing_price_history",
        path: "/api/v1/models/{model_id}/history",
        method: "get",
        params: models::HISTORY_PARAMS,
        description: "Price changes of one model over a window of at most 365 days, oldest first, or a daily \
            series of the price in effect each day (granularity=daily). Use it to see how and when a model's \
            price moved. Twin of GET /api/v1/models/{model_id}/history.",
    },
    Operation {
        kind: Kind::Read(Read::Compare),
        tool: "pricing_compare",
        path: "/api/v1/compare",
        method: "get",
        params: compare::PARAMS,
        description: "Compare 2 to 5 models side by side: input, output and blended prices, context window, \
            benchmark score and price per benchmark point, each row with the model's kind. Use it when choosing \
            between known models. Twin of \
            GET /api/v1/compare.",
    },
    Operation {
        kind: Kind::Post(Post::EstimateCost),
        tool: "pricing_estimate_cost",
        path: "/api/v1/estimate",
        method: "post",
        params: &[],
        description: "Estimate the monthly USD cost of a token workload (requests per month with a task preset \
            or explicit tokens per request, cache hit rate, batch share) for up to 10 models, or for the 10 \
            cheapest active chat models when model_ids is omitted; rows ordered by total cost, with the \
            assumptions used (an embedding or rerank model without an output price is billed no output). Twin of POST /api/v1/estimate.",
    },
    Operation {
        kind: Kind::Post(Post::CostUsage),
        tool: "pricing_cost_usage",
        path: "/api/v1/cost",
        method: "post",
        params: &[],
        description: "The USD cost of one usage record as a provider's API reported it (the usage object of \
            the OpenAI, Anthropic or Gemini API, or OpenTelemetry gen_ai.usage.* attributes) for one model, on \
            the day it happened (`at`): line items for input, cached input, cache writes and output, each \
            with its rate, condition (tier, context threshold, cache TTL) and source. Use it to check or \
            explain a bill. Twin of POST /api/v1/cost.",
    },
    Operation {
        kind: Kind::Read(Read::ListChanges),
        tool: "pricing_recent_changes",
        path: "/api/v1/changes",
        method: "get",
        params: changes::PARAMS,
        description: "The feed of published pricing and lifecycle events (price changes, scheduled changes, \
            launches, deprecations, retirements, limit changes) with significance scores 0-100, newest first, \
            shutdowns announced for a later day included ahead with their successor; filter by window (at most \
            365 days), type, provider, a watch list of up to 50 models (`model`) and minimum significance. Use it \
            to learn what changed recently, or what is coming for the models you use. Twin of GET /api/v1/changes.",
    },
];

impl Operation {
    /// The operation whose MCP tool is `tool`.
    pub fn by_tool(tool: &str) -> Option<&'static Operation> {
        OPERATIONS.iter().find(|op| op.tool == tool)
    }

    /// Whether its path names a model (`{model_id}`).
    pub fn takes_model_id(&self) -> bool {
        self.path.contains("{model_id}")
    }
}

impl Read {
    /// Its `api` function for `model_id` (checked by the caller) and `q`; the
    /// result before the envelope (see [`super::respond::envelope`]).
    pub async fn run(
        self,
        state: &AppState,
        model_id: Option<&str>,
        q: &Query,
    ) -> Result<Value, ApiError> {
        let id = model_id.unwrap_or_default();
        match self {
            Read::ListModels => models::list_models(state, q).await,
            Read::GetModel => models::get_model(state, id, q).await,
            Read::ModelHistory => models::model_history(state, id, q).await,
            Read::Compare => compare::compare_models(state, q).await,
            Read::ListChanges => changes::list_changes(state, q).await,
        }
    }
}
