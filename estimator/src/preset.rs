//! Task presets: typical token volumes per request for common workloads.
//!
//! A preset stands in for measured traffic when a caller does not know its own token counts. The
//! volumes are per API request (one model call), not per user session, and are deliberately round:
//! they are starting points for a what-if calculation, not claims about any one application.
//! Explicit `input_tokens_per_request` / `output_tokens_per_request` always win over a preset.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A task preset with typical token volumes per request (see [`Preset::volumes`]).
///
/// Serialized in snake_case (`"coding_agent"`, `"rag_qa"`, ...), the same names the REST body's
/// `preset` field takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Conversational assistant: 1,500 input / 400 output tokens per request.
    ///
    /// Each turn resends the system prompt (~500 tokens) and a few previous turns of history
    /// (~800) with the new user message (~200); a reply is a few paragraphs (~300 words).
    Chatbot,
    /// Document summarization: 4,000 input / 400 output tokens per request.
    ///
    /// A ~3,000-word article, report section or meeting transcript plus instructions, condensed
    /// roughly ten to one into a ~300-word summary.
    Summarization,
    /// Structured data extraction: 2,000 input / 200 output tokens per request.
    ///
    /// A one- or two-page document (invoice, e-mail, contract page) plus the instructions and the
    /// target schema; the answer is compact JSON with a dozen or so fields.
    Extraction,
    /// One model call of a coding agent: 30,000 input / 1,000 output tokens per request.
    ///
    /// Agent calls resend a long prefix every step: system prompt and tool definitions (~5,000),
    /// file contents and earlier tool results (~25,000). Output is a tool call or a diff with
    /// short reasoning. Such loops usually reuse the prefix, so a high `cache_hit_rate` fits them.
    CodingAgent,
    /// Translation: 1,000 input / 1,000 output tokens per request.
    ///
    /// About 700 words of source text plus a short instruction; translated text has about the
    /// same length as the source, and many target languages need more tokens than English.
    Translation,
    /// Retrieval-augmented question answering: 3,000 input / 300 output tokens per request.
    ///
    /// Instructions and a question (~500 tokens) plus five retrieved chunks of ~500 tokens each;
    /// the answer is a short paragraph with citations.
    RagQa,
    /// Classification or routing: 500 input / 10 output tokens per request.
    ///
    /// A short text (review, support ticket, ~300 words) with the label instructions; the answer
    /// is a single label.
    Classification,
}

/// Token volumes of one request: what a preset stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RequestVolumes {
    /// Input (prompt) tokens per request.
    pub input_tokens_per_request: u64,
    /// Output (completion) tokens per request.
    pub output_tokens_per_request: u64,
}

impl Preset {
    /// Every preset, in the order an API should list them.
    pub const ALL: [Preset; 7] = [
        Preset::Chatbot,
        Preset::Summarization,
        Preset::Extraction,
        Preset::CodingAgent,
        Preset::Translation,
        Preset::RagQa,
        Preset::Classification,
    ];

    /// The wire name of the preset (`"chatbot"`, `"coding_agent"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Preset::Chatbot => "chatbot",
            Preset::Summarization => "summarization",
            Preset::Extraction => "extraction",
            Preset::CodingAgent => "coding_agent",
            Preset::Translation => "translation",
            Preset::RagQa => "rag_qa",
            Preset::Classification => "classification",
        }
    }

    /// The token volumes per request the preset stands for; the variant docs give the reasoning.
    pub const fn volumes(self) -> RequestVolumes {
        let (input, output) = match self {
            Preset::Chatbot => (1_500, 400),
            Preset::Summarization => (4_000, 400),
            Preset::Extraction => (2_000, 200),
            Preset::CodingAgent => (30_000, 1_000),
            Preset::Translation => (1_000, 1_000),
            Preset::RagQa => (3_000, 300),
            Preset::Classification => (500, 10),
        };
        RequestVolumes {
            input_tokens_per_request: input,
            output_tokens_per_request: output,
        }
    }

    /// A one-line description of the task, suitable for listing presets in an API or a form.
    pub const fn description(self) -> &'static str {
        match self {
            Preset::Chatbot => {
                "conversational assistant: system prompt and recent history resent each turn"
            }
            Preset::Summarization => "a ~3,000-word document condensed to a ~300-word summary",
            Preset::Extraction => "a one- or two-page document turned into compact JSON fields",
            Preset::CodingAgent => {
                "one step of a coding agent: long resent prefix with tools and files, short output"
            }
            Preset::Translation => "about 700 words of text translated, output as long as input",
            Preset::RagQa => "a question answered from five retrieved chunks, with citations",
            Preset::Classification => "a short text assigned a single label",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`Preset::from_str`]: the name is not a preset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown preset `{name}`: expected one of {}", PresetList)]
pub struct UnknownPreset {
    /// The name that was given.
    pub name: String,
}

impl FromStr for Preset {
    type Err = UnknownPreset;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownPreset { name: s.to_owned() })
    }
}

/// Renders the preset names as `chatbot, summarization, ...` for error messages.
pub(crate) struct PresetList;

impl fmt::Display for PresetList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, preset) in Preset::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(preset.as_str())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_round_trips_through_its_name() {
        for preset in Preset::ALL {
            assert_eq!(preset.as_str().parse::<Preset>(), Ok(preset));
            let json = serde_json::to_string(&preset).expect("serializes");
            assert_eq!(json, format!("\"{}\"", preset.as_str()));
            let back: Preset = serde_json::from_str(&json).expect("deserializes");
            assert_eq!(back, preset);
        }
    }

    #[test]
    fn every_preset_has_positive_volumes() {
        for preset in Preset::ALL {
            let v = preset.volumes();
            assert!(v.input_tokens_per_request >= 1, "{preset}");
            assert!(v.output_tokens_per_request >= 1, "{preset}");
        }
    }

    #[test]
    fn an_unknown_preset_names_the_allowed_values() {
        let err = "chat".parse::<Preset>().expect_err("not a preset");
        assert_eq!(
            err.to_string(),
            "unknown preset `chat`: expected one of chatbot, summarization, extraction, \
             coding_agent, translation, rag_qa, classification"
        );
    }

    #[test]
    fn the_list_holds_each_preset_once() {
        let mut names: Vec<_> = Preset::ALL.iter().map(|p| p.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Preset::ALL.len());
    }
}
