//! Provider API ids hold slashes (OpenRouter's `openai/o3`, Fireworks'
//! `accounts/fireworks/models/llama-v3p1-70b-instruct`; real ids of the real
//! data in tests/fixtures): the card and the history of such an id typed raw
//! answer exactly as the `%2F`-encoded form does, `/history` stays the suffix,
//! and the MCP tools take the raw id.

use serde_json::{Value, json};

use crate::helpers::fixture_app;
use crate::mcp::over_http;

/// Real provider API ids of two channels, the model each resolves to, and a
/// history window of that channel with published rows.
const IDS: &[(&str, &str, &str)] = &[
    (
        "openrouter:openai/o3",
        "openai:o3",
        "since=2025-01-01&until=2025-12-31",
    ),
    (
        "fireworks:accounts/fireworks/models/llama-v3p1-70b-instruct",
        "meta:llama-3.1-70b-instruct",
        "granularity=daily&channel=fireworks&since=2025-12-09&until=2025-12-15",
    ),
];

#[tokio::test]
async fn provider_api_ids_with_slashes_resolve_raw_as_encoded_on_the_card_and_the_history() {
    let (_db, app) = fixture_app().await;
    for (id, canonical, window) in IDS {
        let encoded = id.replace('/', "%2F");
        let raw = app
            .call(&format!("/api/v1/models/{id}?include=aliases"))
            .await
            .expect(200)
            .json();
        let escaped = app
            .call(&format!("/api/v1/models/{encoded}?include=aliases"))
            .await
            .expect(200)
            .json();
        assert_eq!(raw, escaped, "{id}: the card");
        assert_eq!(raw["data"]["id"], *canonical, "{id}");
        assert!(
            raw["data"]["aliases"]
                .as_array()
                .is_some_and(|a| a.iter().any(|alias| alias["alias"] == *id)),
            "{id} is one of its aliases"
        );

        let raw = app
            .call(&format!("/api/v1/models/{id}/history?{window}"))
            .await
            .expect(200)
            .json();
        let escaped = app
            .call(&format!("/api/v1/models/{encoded}/history?{window}"))
            .await
            .expect(200)
            .json();
        assert_eq!(raw, escaped, "{id}: the history");
        assert_eq!(raw["data"]["model_id"], *canonical);
        assert_eq!(raw["data"]["requested_id"], *id);
        assert!(
            raw["data"]["items"]
                .as_array()
                .is_some_and(|i| !i.is_empty()),
            "{id}: {raw}"
        );
    }
    // A trailing slash is ignored, as before.
    let card = app
        .call("/api/v1/models/openrouter:openai/o3/")
        .await
        .expect(200)
        .json();
    assert_eq!(card["data"]["id"], "openai:o3");
}

#[tokio::test]
async fn the_mcp_tools_take_provider_api_ids_with_slashes() {
    let (_db, app) = fixture_app().await;
    let calls: Vec<Value> = IDS
        .iter()
        .flat_map(|(id, _, _)| {
            [
                json!({"tool": "pricing_get_model", "arguments": {"model_id": id}}),
                json!({"tool": "pricing_price_history",
                       "arguments": {"model_id": id, "since": "2025-06-01", "until": "2025-12-31"}}),
            ]
        })
        .collect();
    let out = over_http(&app, &[], &Value::Array(calls)).await;
    for (i, (id, canonical, _)) in IDS.iter().enumerate() {
        let card = &out["results"][2 * i];
        assert_eq!(card["is_error"], false, "{card}");
        assert_eq!(card["structured"]["data"]["id"], *canonical);
        let rest = app
            .call(&format!("/api/v1/models/{id}"))
            .await
            .expect(200)
            .json();
        assert_eq!(card["structured"], rest, "{id}: MCP answers as REST");
        let history = &out["results"][2 * i + 1];
        assert_eq!(history["is_error"], false, "{history}");
        let rest = app
            .call(&format!(
                "/api/v1/models/{id}/history?since=2025-06-01&until=2025-12-31"
            ))
            .await
            .expect(200)
            .json();
        assert_eq!(history["structured"], rest, "{id}: the history over MCP");
    }
}

#[tokio::test]
async fn history_stays_the_suffix_and_unknown_ids_with_slashes_get_suggestions() {
    let (_db, app) = fixture_app().await;
    // An id ending in `/history` is sent with that slash encoded: it is an id.
    let body = app
        .call("/api/v1/models/openrouter:openai/o3%2Fhistory")
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "MODEL_NOT_FOUND");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("openrouter:openai/o3/history")),
        "{body}"
    );
    let body = app
        .call("/api/v1/models/openrouter:openai/o33")
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "MODEL_NOT_FOUND");
    assert!(
        body["error"]["did_you_mean"]
            .as_array()
            .is_some_and(|s| s.iter().any(|m| m == "openai:o3")),
        "{body}"
    );
    let history = app
        .call("/api/v1/models/openrouter:openai/o3/history")
        .await
        .expect(200)
        .json();
    assert_eq!(history["data"]["model_id"], "openai:o3");
}
