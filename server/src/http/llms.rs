//! `GET /llms.txt`: the service in a few lines for AI agents (the llms.txt
//! convention: Markdown, a title, a one-line summary, then links), built from
//! the table of operations so that it names every endpoint and MCP tool the
//! server has.

use std::fmt::Write as _;
use std::sync::LazyLock;

use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use salvo::prelude::*;

use crate::error::ApiError;
use crate::service::operations::OPERATIONS;
use crate::service::params::Query;

/// The content type of `/llms.txt`.
pub const CONTENT_TYPE_VALUE: &str = "text/markdown; charset=utf-8";

/// The first sentence of an operation's description.
fn first_sentence(description: &str) -> &str {
    description
        .split_once(". ")
        .map_or(description, |(first, _)| first)
        .trim_end_matches('.')
}

fn text() -> String {
    let mut out = String::from(
        "# Model Pricing Service\n\n\
         > Read-only pricing data of token-priced AI models: published prices (USD per 1M tokens, \
         exact decimal strings) on nine channels, price history, lifecycle and price-change events \
         with significance scores, comparisons, monthly cost estimates and the cost of a usage \
         record. JSON over REST, and the same operations as MCP tools.\n\n\
         No key is needed (anonymous callers get a small hourly quota per IP; a key, sent in \
         `X-API-Key`, a larger one). \
         Model ids are `provider:model` (`openai:o3`); provider API ids also resolve, and their \
         `/` may be sent raw or as `%2F` (`/api/v1/models/openrouter:openai/o3`). List parameters \
         take `ids=a,b` or `ids=a&ids=b`. Errors are `{\"error\": {\"code\", \"message\", \
         \"next_step\"}}`.\n\n\
         ## API\n\n\
         - [OpenAPI 3.1 document](/api/v1/openapi.json): every endpoint, parameter and schema\n\
         - [MCP endpoint](/mcp): Streamable HTTP (POST JSON-RPC, stateless JSON answers), one \
         tool per operation below, same data, errors and quota as REST\n",
    );
    for operation in OPERATIONS {
        let _ = writeln!(
            out,
            "- {} `{}` (MCP tool `{}`): {}",
            operation.method.to_uppercase(),
            operation.path,
            operation.tool,
            first_sentence(operation.description)
        );
    }
    out.push_str(
        "\n## Optional\n\n\
         - [Change feed, RSS](/feeds/changes.xml) and [JSON Feed](/feeds/changes.json)\n\
         - [CSV of every current price](/dumps/prices.csv)\n\
         - [Health](/api/v1/health)\n",
    );
    out
}

/// `GET /llms.txt`.
#[handler]
pub(super) async fn llms_txt(req: &mut Request, res: &mut Response) -> Result<(), ApiError> {
    static TEXT: LazyLock<String> = LazyLock::new(text);
    Query::parse(req.uri().query(), &[])?;
    let _ = res.add_header(CONTENT_TYPE, CONTENT_TYPE_VALUE, true);
    let _ = res.add_header(CACHE_CONTROL, "public, max-age=3600", true);
    let _ = res.write_body(TEXT.as_bytes().to_vec());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_names_every_operation_and_tool_in_a_few_lines() {
        let text = text();
        assert!(text.starts_with("# Model Pricing Service\n\n> "));
        for operation in OPERATIONS {
            assert!(text.contains(operation.path), "{}", operation.path);
            assert!(text.contains(operation.tool), "{}", operation.tool);
        }
        assert!(text.lines().count() < 40, "{text}");
        assert_eq!(
            first_sentence("Compare 2 to 5 models side by side. Use it when."),
            "Compare 2 to 5 models side by side"
        );
    }
}
