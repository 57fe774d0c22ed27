//! The truth table (tests/fixtures/truth/facts.jsonl): facts read on the
//! providers' own pages, checked one by one against the bundled dataset
//! (data/snapshot.json.gz) published whole, through the HTTP API.
//!
//! Each row says whether the data satisfies it today (`holds`) or not yet
//! (`known_wrong`, with a note of what the data says instead). A `holds` row
//! that fails is a regression; a `known_wrong` row that holds is a fix, and the
//! table must then be updated, so both fail the test.

use std::collections::{BTreeMap, HashMap};

use pricing::publish::snapshot::CHANNELS;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value;
use time::{Date, Duration, OffsetDateTime};

use crate::helpers::{TestApp, TestDb, data_app, enc, fixture_bytes, publish_bundled};

/// How far a published change may be dated from the provider's own date.
const DATE_TOLERANCE_DAYS: i64 = 7;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    /// The price in effect on the day the page was read.
    Price,
    /// The price in effect on a past day (`date`).
    PriceOn,
    /// A price moved from `old` to `new` on `date`.
    Change,
    /// The model's launch (`official`: the card's `launch_date`) or the day
    /// a channel started selling it.
    Launch,
    /// The day the maker announced the shutdown (the card's `deprecation_date`).
    Deprecation,
    /// The day the channel stopped selling the model.
    Retirement,
    /// A limit (`component`: `context_window` or `max_output_tokens`) moved
    /// from `old` to `new` tokens on `date`.
    LimitChange,
    /// The replacement the maker's page names (the card's `successor`).
    Successor,
}

/// The limits a `limit_change` fact names, as the events' `detail.limit` does.
const LIMITS: &[&str] = &["context_window", "max_output_tokens"];

/// A page's "64K" is 64,000 or 65,536 tokens: a limit within this share of the
/// page's figure is that figure (the build's own restatement rule,
/// tools/dataset/pipeline/screen.py LIMIT_RESTATEMENT).
const LIMIT_TOLERANCE: Decimal = Decimal::from_parts(5, 0, 0, false, 2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Expect {
    Holds,
    KnownWrong,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fact {
    id: String,
    kind: Kind,
    model: String,
    channel: String,
    #[serde(default)]
    component: Option<String>,
    #[serde(default)]
    tier: Option<String>,
    #[serde(default)]
    date: Option<Date>,
    #[serde(default)]
    value: Option<Decimal>,
    #[serde(default)]
    old: Option<Decimal>,
    #[serde(default)]
    new: Option<Decimal>,
    /// For `successor`: the canonical id of the replacement the page names.
    #[serde(default)]
    successor: Option<String>,
    url: String,
    /// The stored copy that was read, where it is not the provider's own address.
    #[serde(default)]
    copy: Option<String>,
    read: Date,
    /// Why `read` is not the day the copy shows (an undated copy).
    #[serde(default)]
    read_note: Option<String>,
    says: String,
    expect: Expect,
    #[serde(default)]
    note: Option<String>,
}

fn facts() -> Vec<Fact> {
    let bytes = fixture_bytes("truth/facts.jsonl");
    let text = String::from_utf8(bytes).expect("facts.jsonl is UTF-8");
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("facts.jsonl line {}: {e}", n + 1))
        })
        .collect()
}

/// What a row must carry for its kind; a malformed row is a table error, not
/// a data error.
fn check_shape(fact: &Fact) -> Result<(), String> {
    let needs = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(format!("{}: a {:?} fact needs {what}", fact.id, fact.kind))
        }
    };
    needs(
        CHANNELS.contains(&fact.channel.as_str()),
        "one of the nine channels",
    )?;
    needs(fact.url.starts_with("https://"), "an https URL")?;
    needs(
        fact.read <= OffsetDateTime::now_utc().date(),
        "a read day that is not in the future",
    )?;
    needs(
        fact.copy
            .as_deref()
            .is_none_or(|c| c.starts_with("https://")),
        "an https copy address",
    )?;
    needs(
        fact.read_note
            .as_deref()
            .is_none_or(|n| !n.trim().is_empty()),
        "a non-empty read_note",
    )?;
    needs(!fact.says.trim().is_empty(), "what the page says")?;
    needs(
        fact.expect == Expect::Holds || fact.note.as_deref().is_some_and(|n| !n.is_empty()),
        "a note of what the data says instead",
    )?;
    let priced = fact.component.is_some() && fact.tier.is_some();
    match fact.kind {
        Kind::Price => needs(priced && fact.value.is_some(), "component, tier and value"),
        Kind::PriceOn => needs(
            priced && fact.value.is_some() && fact.date.is_some(),
            "component, tier, value and date",
        ),
        Kind::Change => needs(
            priced && fact.old.is_some() && fact.new.is_some() && fact.date.is_some(),
            "component, tier, date, old and new",
        ),
        Kind::Launch | Kind::Deprecation | Kind::Retirement => needs(fact.date.is_some(), "date"),
        Kind::Successor => needs(
            fact.successor.is_some() && fact.date.is_none(),
            "successor and no date",
        ),
        Kind::LimitChange => needs(
            fact.component
                .as_deref()
                .is_some_and(|c| LIMITS.contains(&c))
                && fact.tier.is_none()
                && fact.old.is_some()
                && fact.new.is_some()
                && fact.date.is_some(),
            "component context_window or max_output_tokens, no tier, date, old and new",
        ),
    }
}

/// Reads the served data for the facts, one request per model card (and day).
struct Reader<'a> {
    app: &'a TestApp,
    cards: HashMap<(String, Option<Date>), Result<Value, String>>,
}

impl Reader<'_> {
    async fn card(&mut self, model: &str, day: Option<Date>) -> Result<Value, String> {
        let key = (model.to_owned(), day);
        if let Some(card) = self.cards.get(&key) {
            return card.clone();
        }
        let mut path = format!("/api/v1/models/{}?include=pricing", enc(model));
        if let Some(day) = day {
            path.push_str(&format!("&as_of={day}"));
        }
        let reply = self.app.call(&path).await;
        let card = match reply.status {
            200 => Ok(reply.json()["data"].clone()),
            404 => Err(format!("not served ({})", reply.error_code())),
            status => panic!("GET {path}: unexpected status {status}: {}", reply.text),
        };
        self.cards.insert(key, card.clone());
        card
    }

    /// The price of one channel, component and tier in effect on `day` (the
    /// served publish's day when `None`).
    async fn price(&mut self, fact: &Fact, day: Option<Date>) -> Result<Decimal, String> {
        let card = self.card(&fact.model, day).await?;
        let rows = card["pricing"]["in_effect"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let row = rows.iter().find(|r| {
            r["channel"] == fact.channel.as_str()
                && r["component"].as_str() == fact.component.as_deref()
                && r["tier"].as_str() == fact.tier.as_deref()
        });
        match row {
            Some(row) => decimal(&row["usd_per_1m"]),
            None => Err("no price in effect".into()),
        }
    }

    async fn check(&mut self, fact: &Fact) -> Result<(), String> {
        match fact.kind {
            Kind::Price | Kind::PriceOn => {
                let seen = self.price(fact, fact.date).await?;
                same(Some(seen), fact.value, "price")
            }
            Kind::Change => self.change(fact).await,
            Kind::Launch if fact.channel == "official" => self.lifecycle(fact, "launch_date").await,
            Kind::Launch => self.sold_from(fact).await,
            Kind::Deprecation => self.lifecycle(fact, "deprecation_date").await,
            Kind::Retirement => self.sold_until(fact).await,
            Kind::Successor => {
                let card = self.card(&fact.model, None).await?;
                let seen = card["successor"].as_str();
                if seen == fact.successor.as_deref() {
                    Ok(())
                } else {
                    Err(format!("successor is {}", seen.unwrap_or("null")))
                }
            }
            Kind::LimitChange => self.limit_change(fact).await,
        }
    }

    /// Whether the channel has any price in effect on `day`.
    async fn sold_on(&mut self, fact: &Fact, day: Date) -> Result<bool, String> {
        let card = self.card(&fact.model, Some(day)).await?;
        Ok(card["pricing"]["in_effect"]
            .as_array()
            .is_some_and(|rows| rows.iter().any(|r| r["channel"] == fact.channel.as_str())))
    }

    /// A channel's launch: its prices start within the tolerance of the date
    /// (none a week and a day before, some a week after).
    async fn sold_from(&mut self, fact: &Fact) -> Result<(), String> {
        let day = fact.date.expect("shape checked");
        let week = Duration::days(DATE_TOLERANCE_DAYS);
        if self.sold_on(fact, day - week - Duration::days(1)).await? {
            return Err(format!(
                "already priced on {}",
                day - week - Duration::days(1)
            ));
        }
        if !self.sold_on(fact, day + week).await? {
            return Err(format!("no price yet on {}", day + week));
        }
        Ok(())
    }

    /// A shutdown on a channel: priced in the week before it, no price from
    /// the day after (a shutdown at noon leaves the day itself half sold).
    async fn sold_until(&mut self, fact: &Fact) -> Result<(), String> {
        let day = fact.date.expect("shape checked");
        let before = day - Duration::days(DATE_TOLERANCE_DAYS + 1);
        if !self.sold_on(fact, before).await? {
            return Err(format!("no price already on {before}"));
        }
        let after = day + Duration::days(1);
        if self.sold_on(fact, after).await? {
            return Err(format!("still priced on {after}"));
        }
        Ok(())
    }

    async fn lifecycle(&mut self, fact: &Fact, field: &str) -> Result<(), String> {
        let card = self.card(&fact.model, None).await?;
        let want = fact.date.map(|d| d.to_string());
        let seen = card[field].as_str().map(str::to_owned);
        if seen == want {
            Ok(())
        } else {
            Err(format!("{field} is {}", seen.as_deref().unwrap_or("null")))
        }
    }

    /// Exactly one price_change of the fact's component and tier dated within
    /// the tolerance of the fact's date, from `old` to `new`.
    async fn change(&mut self, fact: &Fact) -> Result<(), String> {
        let day = fact.date.expect("shape checked");
        let path = format!(
            "/api/v1/models/{}/history?channel={}&component={}&since={}&until={}&limit=100",
            enc(&fact.model),
            fact.channel,
            fact.component.as_deref().unwrap_or_default(),
            day - SEARCH_WINDOW,
            day + SEARCH_WINDOW,
        );
        let reply = self.app.call(&path).await;
        if reply.status == 404 {
            return Err(format!("not served ({})", reply.error_code()));
        }
        let body = reply.expect(200).json();
        let events = items_where(&body, |e| {
            e["event_type"] == "price_change" && e["tier"].as_str() == fact.tier.as_deref()
        });
        one_near(&events, fact, "price_change", Decimal::ZERO)
    }

    /// Exactly one limit_change of the fact's model and limit dated within
    /// the tolerance of the fact's date, from `old` to `new` (within
    /// LIMIT_TOLERANCE: a page writes limits in thousands).
    async fn limit_change(&mut self, fact: &Fact) -> Result<(), String> {
        let day = fact.date.expect("shape checked");
        let provider = fact.model.split(':').next().unwrap_or_default();
        let path = format!(
            "/api/v1/changes?event_type=limit_change&provider={}&since={}&until={}&limit=100",
            enc(provider),
            day - SEARCH_WINDOW,
            day + SEARCH_WINDOW,
        );
        let body = self.app.call(&path).await.expect(200).json();
        let events = items_where(&body, |e| {
            e["model_id"] == fact.model.as_str()
                && e["detail"]["limit"].as_str() == fact.component.as_deref()
        });
        one_near(&events, fact, "limit_change", LIMIT_TOLERANCE)
    }
}

/// How far around a fact's date its events are looked for.
const SEARCH_WINDOW: Duration = Duration::days(45);

/// The items of a list answer that `keep` keeps.
fn items_where(body: &Value, keep: impl Fn(&Value) -> bool) -> Vec<Value> {
    body["data"]["items"]
        .as_array()
        .map(|items| items.iter().filter(|e| keep(e)).cloned().collect())
        .unwrap_or_default()
}

/// Exactly one of `events` (of type `what`) dated within the tolerance of the
/// fact's date, from its `old` to its `new` value, each within `tolerance` (a
/// share of the fact's value; zero: equal).
fn one_near(events: &[Value], fact: &Fact, what: &str, tolerance: Decimal) -> Result<(), String> {
    let day = fact.date.expect("shape checked");
    let near: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["effective_date"]
                .as_str()
                .and_then(|d| Date::parse(d, DATE_FORMAT).ok())
                .is_some_and(|d| (d - day).whole_days().abs() <= DATE_TOLERANCE_DAYS)
        })
        .collect();
    let describe = |es: &[&Value]| {
        es.iter()
            .map(|e| {
                format!(
                    "{} {} -> {}",
                    e["effective_date"].as_str().unwrap_or("?"),
                    e["old_value"].as_str().unwrap_or("null"),
                    e["new_value"].as_str().unwrap_or("null"),
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match near.as_slice() {
        [event] => {
            close(
                decimal(&event["old_value"]).ok(),
                fact.old,
                tolerance,
                "old value",
            )?;
            close(
                decimal(&event["new_value"]).ok(),
                fact.new,
                tolerance,
                "new value",
            )
        }
        [] if events.is_empty() => Err(format!(
            "no {what} within {} days",
            SEARCH_WINDOW.whole_days()
        )),
        [] => Err(format!(
            "no {what} within {DATE_TOLERANCE_DAYS} days; nearby: {}",
            describe(&events.iter().collect::<Vec<_>>())
        )),
        many => Err(format!(
            "{} events within {DATE_TOLERANCE_DAYS} days: {}",
            many.len(),
            describe(many)
        )),
    }
}

/// `seen` within `tolerance` (a share) of `want`; zero tolerance is `same`.
fn close(
    seen: Option<Decimal>,
    want: Option<Decimal>,
    tolerance: Decimal,
    what: &str,
) -> Result<(), String> {
    match (seen, want) {
        (Some(s), Some(w)) if !tolerance.is_zero() && (s - w).abs() <= w.abs() * tolerance => {
            Ok(())
        }
        _ => same(seen, want, what),
    }
}

const DATE_FORMAT: &[time::format_description::BorrowedFormatItem<'_>] =
    time::macros::format_description!("[year]-[month]-[day]");

fn decimal(value: &Value) -> Result<Decimal, String> {
    value
        .as_str()
        .ok_or_else(|| format!("not a decimal string: {value}"))?
        .parse()
        .map_err(|e| format!("not a decimal ({e}): {value}"))
}

/// Decimal equality by value (`0.80` is `0.8`).
fn same(seen: Option<Decimal>, want: Option<Decimal>, what: &str) -> Result<(), String> {
    if seen.map(|d| d.normalize()) == want.map(|d| d.normalize()) {
        Ok(())
    } else {
        let show = |d: Option<Decimal>| d.map_or("null".to_owned(), |d| d.normalize().to_string());
        Err(format!("{what} is {}", show(seen)))
    }
}

#[derive(Debug, Default)]
struct Tally {
    rows: usize,
    holding: usize,
    known_wrong: usize,
}

#[tokio::test]
async fn the_truth_table_holds_against_the_bundled_dataset() {
    let facts = facts();
    let shape_errors: Vec<String> = facts.iter().filter_map(|f| check_shape(f).err()).collect();
    assert!(
        shape_errors.is_empty(),
        "malformed rows:\n{}",
        shape_errors.join("\n")
    );
    let mut ids: Vec<&str> = facts.iter().map(|f| f.id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "fact ids are unique");
    assert!(
        facts.len() >= 60,
        "at least 60 facts, found {}",
        facts.len()
    );

    let db = TestDb::new().await;
    publish_bundled(&db).await;
    let app = data_app(&db).await;
    let mut reader = Reader {
        app: &app,
        cards: HashMap::new(),
    };

    let mut tally: BTreeMap<Kind, Tally> = BTreeMap::new();
    let mut broken = Vec::new();
    let mut fixed = Vec::new();
    for fact in &facts {
        let outcome = reader.check(fact).await;
        let t = tally.entry(fact.kind).or_default();
        t.rows += 1;
        match (fact.expect, outcome) {
            (Expect::Holds, Ok(())) => t.holding += 1,
            (Expect::Holds, Err(why)) => broken.push(format!(
                "{} ({} {}): {why}",
                fact.id, fact.model, fact.channel
            )),
            (Expect::KnownWrong, Err(_)) => t.known_wrong += 1,
            (Expect::KnownWrong, Ok(())) => fixed.push(fact.id.clone()),
        }
    }

    println!("truth table: {} facts", facts.len());
    let per_channel: Vec<String> = CHANNELS
        .iter()
        .map(|c| format!("{c} {}", facts.iter().filter(|f| f.channel == *c).count()))
        .collect();
    println!("per channel: {}", per_channel.join(", "));
    println!(
        "{:<12} {:>5} {:>8} {:>12}",
        "kind", "rows", "holding", "known_wrong"
    );
    for (kind, t) in &tally {
        println!(
            "{:<12} {:>5} {:>8} {:>12}",
            format!("{kind:?}"),
            t.rows,
            t.holding,
            t.known_wrong
        );
    }
    // Both lists in one message, so that a data rebuild shows at once every
    // row the table must change.
    let mut problems = Vec::new();
    if !broken.is_empty() {
        problems.push(format!(
            "facts marked `holds` that the data no longer satisfies:\n{}",
            broken.join("\n")
        ));
    }
    if !fixed.is_empty() {
        problems.push(format!(
            "facts marked `known_wrong` that now hold: set their `expect` to `holds` and drop the \
             note in tests/fixtures/truth/facts.jsonl: {}",
            fixed.join(", ")
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
