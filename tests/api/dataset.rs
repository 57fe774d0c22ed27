//! The bundled dataset (data/snapshot.json.gz) published whole: enough real
//! models, channels and history, and facts that two sources agree on.

use pricing::publish::snapshot::Snapshot;
use pricing::publish::{self, BUNDLED_SNAPSHOT, Options};

use crate::helpers::TestDb;

/// The build's own `report` block of a gzipped snapshot.
fn snapshot_report(gzipped: &[u8]) -> serde_json::Value {
    let json: serde_json::Value =
        serde_json::from_reader(flate2::read::GzDecoder::new(gzipped)).expect("snapshot JSON");
    json["report"].clone()
}

#[tokio::test]
async fn the_bundled_dataset_publishes_with_real_breadth_and_history() {
    let db = TestDb::new().await;
    let snapshot = Snapshot::from_bytes(BUNDLED_SNAPSHOT).expect("bundled snapshot parses");
    let mut client = db.client().await;
    let report = publish::publish(&mut client, &snapshot, Options::default())
        .await
        .expect("the bundled dataset publishes without bad rows");
    assert!(report.skipped.is_empty());
    // The build's counts and the window it counted price changes in.
    let built = &snapshot_report(BUNDLED_SNAPSHOT)["counts"];
    let window: Vec<&str> = built["price_change_window"]
        .as_array()
        .expect("window")
        .iter()
        .filter_map(|d| d.as_str())
        .collect();

    let row = client
        .query_one(
            "select
                (select count(distinct p.model_id) from pricing.prices p
                   join pricing.models m on m.id = p.model_id
                  where m.status = 'active' and p.valid_from <= current_date
                    and (p.valid_to is null or p.valid_to > current_date)),
                (select count(distinct (p.model_id, p.channel)) from pricing.prices p
                   join pricing.models m on m.id = p.model_id
                  where m.status = 'active' and p.valid_from <= current_date
                    and (p.valid_to is null or p.valid_to > current_date)),
                (select count(distinct channel) from pricing.prices where valid_to is null),
                (select count(*) from pricing.events
                  where event_type = 'price_change'
                    and effective_date between $1::text::date and $2::text::date)",
            &[&window[0], &window[1]],
        )
        .await
        .expect("counts");
    let (active_priced, active_listings, channels, changes): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    // The four real sources list 1,516 distinct models on the nine channels in
    // all (data/PROVENANCE.md); 1,166 of them are active with a current price
    // once the figures that are no per-token USD price of the channel are
    // screened out (docs/publishing.md, "Screens") and the ids one model has
    // on several channels are one model (tools/dataset/former_ids.json).
    assert!(
        active_priced >= 1160,
        "active models with prices: {active_priced}"
    );
    assert!(
        active_listings >= 1500,
        "active model-channel listings: {active_listings}"
    );
    assert_eq!(channels, 9, "prices on all nine channels");
    // How many price changes there are is whatever the sources' screened
    // history gives (tools/dataset/report.py prints it): the publish emits
    // exactly the build's count, no more and no fewer.
    assert_eq!(
        Some(changes),
        built["price_changes_in_window"].as_i64(),
        "price changes in {window:?}"
    );

    // OpenAI o3 on its maker's API: 10 / 40 before June 2025, 2 / 8 after.
    let o3 = client
        .query(
            "select component::text, trim_scale(usd_per_1m)::text, valid_from
             from pricing.prices
             where model_id = 'openai:o3' and channel = 'official' and tier = 'standard'
               and component in ('input', 'output')
               and daterange(valid_from, valid_to) && daterange('2025-05-01', '2025-07-01')
             order by component, valid_from",
            &[],
        )
        .await
        .expect("o3 prices");
    let seen: Vec<(String, String)> = o3.iter().map(|r| (r.get(0), r.get(1))).collect();
    let want = [
        ("input", "10"),
        ("input", "2"),
        ("output", "40"),
        ("output", "8"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(c, p)| ((*c).into(), (*p).into()))
        .collect();
    assert_eq!(seen, want);
    let cut_day: time::Date = o3[1].get(2);
    assert_eq!(
        (cut_day.year(), cut_day.month() as u8),
        (2025, 6),
        "the cut landed in June 2025"
    );
}
