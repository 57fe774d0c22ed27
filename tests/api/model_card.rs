//! GET /api/v1/models/{model_id}: resolution of every id form to the canonical
//! id, each include section, MODEL_NOT_FOUND with suggestions, past prices,
//! is_stale.

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::helpers::{enc, fixture_app};

const SECTIONS: &[&str] = &[
    "pricing",
    "deprecation",
    "benchmarks",
    "aliases",
    "history_summary",
];

#[tokio::test]
async fn the_card_resolves_ids_api_ids_and_renamed_slugs_to_the_canonical_id() {
    let (_db, app) = fixture_app().await;
    for (requested, canonical) in [
        ("openai:o3", "openai:o3"),
        ("openai:o3-2025-04-16", "openai:o3"),
        ("openai:gpt-4-1", "openai:gpt-4.1"),
        ("openrouter:openai/gpt-4o", "openai:gpt-4o"),
        ("OpenAI:GPT-4o", "openai:gpt-4o"),
    ] {
        let body = app
            .call(&format!("/api/v1/models/{}", enc(requested)))
            .await
            .expect(200)
            .json();
        assert_eq!(body["data"]["id"], canonical, "{requested}");
        assert_eq!(body["data"]["requested_id"], requested);
        assert_eq!(body["schema_version"], "1");
        assert_eq!(body["pagination"]["count"], 1);
    }
}

#[tokio::test]
async fn the_card_shows_current_prices_per_channel_and_the_reference_price() {
    let (_db, app) = fixture_app().await;
    let card = app
        .call("/api/v1/models/openai:o3")
        .await
        .expect(200)
        .json();
    let data = &card["data"];
    assert_eq!(data["status"], "deprecated");
    assert_eq!(data["context_window"], 200000);
    assert_eq!(data["prices_as_of"], "2026-11-12");
    let reference = &data["reference_price"];
    assert_eq!(reference["channel"], "official");
    assert_eq!(reference["input"], "2");
    assert_eq!(reference["output"], "8");
    assert_eq!(reference["blended"], "3.5", "(3 x 2 + 8) / 4");
    let channels: Vec<&str> = data["prices"]
        .as_array()
        .expect("prices")
        .iter()
        .map(|p| p["channel"].as_str().expect("channel"))
        .collect();
    assert!(
        channels.contains(&"official") && channels.contains(&"azure"),
        "{channels:?}"
    );
    for section in SECTIONS {
        assert!(data.get(*section).is_none(), "{section} only on request");
    }
}

#[tokio::test]
async fn each_include_adds_its_section() {
    let (_db, app) = fixture_app().await;
    for section in SECTIONS {
        let body = app
            .call(&format!("/api/v1/models/openai:o3?include={section}"))
            .await
            .expect(200)
            .json();
        for other in SECTIONS {
            assert_eq!(
                body["data"].get(*other).is_some(),
                other == section,
                "include={section}: {other}"
            );
        }
    }
    let all = app
        .call("/api/v1/models/google:gemini-4-argon?include=pricing,deprecation,benchmarks,aliases,history_summary")
        .await
        .expect(200)
        .json();
    let data = &all["data"];
    // pricing: every tier in effect, and the scheduled December change
    let scheduled = data["pricing"]["scheduled"].as_array().expect("scheduled");
    assert!(scheduled.iter().any(|p| p["valid_from"] == "2026-12-01"
        && p["component"] == "input"
        && p["usd_per_1m"] == "4"));
    assert!(
        data["pricing"]["in_effect"]
            .as_array()
            .expect("rows")
            .iter()
            .all(|p| p["valid_from"].as_str() <= Some("2026-11-12"))
    );
    // benchmarks: the top-rated model in arena_overall has an aggregate of 100
    assert_eq!(data["benchmarks"]["aggregate"], "100");
    assert!(
        data["benchmarks"]["scores"]
            .as_array()
            .expect("scores")
            .iter()
            .any(|s| s["benchmark"] == "arena_overall")
    );
    assert!(
        data["aliases"]
            .as_array()
            .expect("aliases")
            .iter()
            .any(|a| a["alias"] == "openrouter:google/gemini-4-argon")
    );
    assert_eq!(data["history_summary"]["scheduled_changes"], 3);

    let deprecated = app
        .call("/api/v1/models/openai:gpt-4.1?include=deprecation")
        .await
        .expect(200)
        .json();
    let d = &deprecated["data"]["deprecation"];
    assert_eq!(d["status"], "deprecated");
    assert_eq!(d["deprecation_date"], "2026-10-15");
    assert!(
        d["events"]
            .as_array()
            .expect("events")
            .iter()
            .any(|e| e["event_type"] == "deprecation")
    );
    assert!(
        deprecated["hint"]
            .as_str()
            .is_some_and(|h| h.contains("deprecated"))
    );
}

#[tokio::test]
async fn an_unknown_model_is_not_found_with_suggestions_best_first() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models/openai:gpt4o")
        .await
        .expect(404)
        .json();
    assert_eq!(body["error"]["code"], "MODEL_NOT_FOUND");
    assert_eq!(body["error"]["did_you_mean"][0], "openai:gpt-4o");
    assert!(
        body["error"]["next_step"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    let body = app
        .call("/api/v1/models/claude-sonet-5-5")
        .await
        .expect(404)
        .json();
    assert_eq!(
        body["error"]["did_you_mean"][0], "anthropic:claude-sonnet-5-5",
        "{body}"
    );
    let body = app
        .call("/api/v1/models/nothing:like-this-at-all")
        .await
        .expect(404)
        .json();
    assert!(body["error"]["did_you_mean"].is_array());
}

#[tokio::test]
async fn an_unknown_include_is_an_invalid_argument() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models/openai:o3?include=pricing,reviews")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["code"], "INVALID_ARGUMENT");
    assert_eq!(body["error"]["parameter"], "include");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("history_summary"))
    );
}

#[tokio::test]
async fn the_card_shows_past_prices_for_an_as_of_day() {
    let (_db, app) = fixture_app().await;
    // o3's official price was cut from 10 / 40 to 2 / 8 on 2025-06-10.
    let before = app
        .call("/api/v1/models/openai:o3?as_of=2025-06-09")
        .await
        .expect(200)
        .json();
    assert_eq!(before["data"]["prices_as_of"], "2025-06-09");
    assert_eq!(before["data"]["reference_price"]["input"], "10");
    assert_eq!(before["data"]["reference_price"]["output"], "40");
    let after = app
        .call("/api/v1/models/openai:o3?as_of=2025-06-10")
        .await
        .expect(200)
        .json();
    assert_eq!(after["data"]["reference_price"]["input"], "2");
}

#[tokio::test]
async fn is_stale_means_verified_more_than_30_days_before_the_publish() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models/openai:gpt-4-0613?include=pricing")
        .await
        .expect(200)
        .json();
    let as_of =
        OffsetDateTime::parse(body["as_of"].as_str().expect("as_of"), &Rfc3339).expect("as_of");
    let mut rows: Vec<Value> = Vec::new();
    for id in [
        "openai:gpt-4o",
        "openai:o3",
        "amazon:nova-pro",
        "deepseek:deepseek-chat",
    ] {
        let card = app
            .call(&format!("/api/v1/models/{id}?include=pricing"))
            .await
            .expect(200)
            .json();
        rows.extend(
            card["data"]["pricing"]["in_effect"]
                .as_array()
                .expect("rows")
                .iter()
                .cloned(),
        );
        rows.extend(
            card["data"]["prices"]
                .as_array()
                .expect("prices")
                .iter()
                .cloned(),
        );
    }
    assert!(!rows.is_empty());
    for row in rows {
        let verified = OffsetDateTime::parse(
            row["last_verified_at"].as_str().expect("verified"),
            &Rfc3339,
        )
        .expect("ts");
        let stale = verified < as_of - time::Duration::days(30);
        assert_eq!(row["is_stale"], stale, "{row}");
    }
}
