"""Entity resolution: which real model (maker + model) a source row names, and on which channel.

Every source row is reduced to a `Ref`: the channel it prices, the provider API id it uses, a
maker slug and a normalised match key. Rows with the same (maker, match key) are one model.
See docs/snapshot-format.md, "Entity resolution", for the rules in prose.
"""
import json
import re
from collections import defaultdict
from dataclasses import dataclass

from . import FACTS

CHANNELS = ("official", "openrouter", "aws_bedrock", "azure", "vertex", "together", "fireworks", "groq", "novita")

# litellm `litellm_provider` -> channel, for the resellers that are channels of their own
LITELLM_CHANNEL = {
    "openrouter": "openrouter",
    "bedrock": "aws_bedrock", "bedrock_converse": "aws_bedrock",
    "azure": "azure", "azure_ai": "azure", "azure_text": "azure",
    "together_ai": "together",
    "fireworks_ai": "fireworks", "fireworks_ai-embedding-models": "fireworks",
    "groq": "groq",
    "novita": "novita",
    "azure_anthropic": "azure",          # Claude in Microsoft Foundry (Azure)
    "bedrock_mantle": "aws_bedrock",     # Bedrock's OpenAI-compatible endpoint (a routing variant)
}
# channel rows that are another endpoint of the same host: priced only when no plain row exists
LITELLM_ROUTING = {"bedrock_mantle"}
# litellm providers that are a maker's own API -> that maker (channel `official` when it serves
# its own models; any other maker's model there is a resale and is left out)
LITELLM_OFFICIAL = {
    "openai": "openai", "text-completion-openai": "openai",
    "anthropic": "anthropic",
    "gemini": "google",
    "mistral": "mistral", "codestral": "mistral", "text-completion-codestral": "mistral",
    "deepseek": "deepseek",
    "xai": "xai",
    "cohere": "cohere", "cohere_chat": "cohere",
    "ai21": "ai21",
    "zai": "zhipu",
    "minimax": "minimax",
    "moonshot": "moonshotai",
    "dashscope": "alibaba",
    "perplexity": "perplexity",
    "meta_llama": "meta",
    "amazon_nova": "amazon",
    "volcengine": "bytedance",
    "xiaomi_mimo": "xiaomi",
    "inception": "inception", "text-completion-inception": "inception",
    "voyage": "voyage",
    "tencent": "tencent", "watsonx": "ibm", "nvidia_nim": "nvidia", "snowflake": "snowflake",
    "meta": "meta",                      # Meta's own API (Muse models); meta_llama is its Llama API
    "palm": "google",                    # Google's PaLM API
    "aleph_alpha": "aleph-alpha",
    "cognition": "cognition",
    "v0": "vercel",
    "databricks": "databricks",          # its own DBRX / MPT models (the rest there is resold)
    # a second (China-region) API of a maker: used only for models its main API does not list
    "bigmodel": "zhipu", "qwencloud": "alibaba", "qwen_ai_platform": "alibaba",
}
# official providers that are a maker's secondary (regional) API: a fallback, see LITELLM_OFFICIAL
OFFICIAL_FALLBACK = {"bigmodel", "qwencloud", "qwen_ai_platform"}
# official providers that mostly resell: a row is the maker's own only when the model name says so
OFFICIAL_NAMED_ONLY = {"databricks"}
# genai-prices provider id -> channel or ("official", maker)
GENAI_CHANNEL = {
    "openrouter": "openrouter", "aws": "aws_bedrock", "azure": "azure", "together": "together",
    "fireworks": "fireworks", "groq": "groq", "novita": "novita",
}
GENAI_OFFICIAL = {
    "anthropic": "anthropic", "openai": "openai", "google": "google", "mistral": "mistral",
    "deepseek": "deepseek", "x-ai": "xai", "cohere": "cohere", "meta": "meta", "moonshotai": "moonshotai",
    "zai": "zhipu", "minimax": "minimax", "perplexity": "perplexity", "arcee": "arcee", "voyageai": "voyage",
    "zhipuai": "zhipu",
}
GENAI_FALLBACK = {"zhipuai"}             # Zhipu's China API: only for models z.ai does not list
# models.dev provider id -> channel or official maker (metadata; prices where no other source has
# the model on that channel)
MODELSDEV_CHANNEL = {
    "openrouter": "openrouter", "amazon-bedrock": "aws_bedrock", "azure": "azure", "google-vertex": "vertex",
    "google-vertex-anthropic": "vertex", "togetherai": "together", "fireworks-ai": "fireworks", "groq": "groq",
    "novita-ai": "novita",
}
MODELSDEV_OFFICIAL = {
    "openai": "openai", "anthropic": "anthropic", "google": "google", "mistral": "mistral", "deepseek": "deepseek",
    "xai": "xai", "cohere": "cohere", "alibaba": "alibaba", "moonshotai": "moonshotai", "zai": "zhipu",
    "minimax": "minimax", "perplexity": "perplexity", "llama": "meta", "nova": "amazon", "xiaomi": "xiaomi",
    "inception": "inception", "morph": "morph", "sarvam": "sarvam",
    "stepfun": "stepfun", "upstage": "upstage", "bailing": "inclusionai",
    "alibaba-cn": "alibaba", "zhipuai": "zhipu", "moonshotai-cn": "moonshotai", "minimax-cn": "minimax",
}
# the China-region APIs of makers that also have an international one: fallback only
MODELSDEV_FALLBACK = {"alibaba-cn", "zhipuai", "moonshotai-cn", "minimax-cn"}

# organisation prefixes used by hosts ("meta-llama/Llama-3.1-8B") -> maker slug
ORG_MAKERS = {
    "meta-llama": "meta", "meta": "meta", "facebook": "meta",
    "mistralai": "mistral", "mistral": "mistral",
    "qwen": "alibaba", "alibaba": "alibaba", "alibaba-nlp": "alibaba",
    "deepseek-ai": "deepseek", "deepseek": "deepseek",
    "google": "google", "openai": "openai", "anthropic": "anthropic",
    "x-ai": "xai", "xai": "xai",
    "cohere": "cohere", "coherelabs": "cohere", "cohereforai": "cohere",
    "amazon": "amazon", "microsoft": "microsoft", "nvidia": "nvidia",
    "moonshotai": "moonshotai", "moonshot": "moonshotai",
    "z-ai": "zhipu", "zai-org": "zhipu", "zai": "zhipu", "thudm": "zhipu", "zhipuai": "zhipu", "zhipu": "zhipu",
    "minimax": "minimax", "minimaxai": "minimax",
    "ai21": "ai21", "ai21labs": "ai21",
    "01-ai": "01-ai", "bytedance": "bytedance", "bytedance-seed": "bytedance", "baidu": "baidu",
    "tencent": "tencent", "xiaomi": "xiaomi", "xiaomimimo": "xiaomi", "ibm-granite": "ibm", "ibm": "ibm",
    "perplexity": "perplexity", "nousresearch": "nousresearch", "allenai": "allenai",
    "inception": "inception", "inceptionlabs": "inception", "arcee-ai": "arcee", "liquid": "liquid",
    "stepfun-ai": "stepfun", "stepfun": "stepfun", "meituan": "meituan", "meituan-longcat": "meituan",
    "writer": "writer", "twelvelabs": "twelvelabs", "voyage": "voyage", "meta-models": "meta",
    "nous": "nousresearch", "inclusionai": "inclusionai",
    # one maker under two spellings: Together's org names beside OpenRouter's and the maker's own
    "zero-one-ai": "01-ai", "ricursive-ai": "ricursiveai",
    "codellama": "meta",                 # Meta's Code Llama organisation (codellama/CodeLlama-7b-hf)
}
# bedrock model ids start with the maker: "anthropic.claude-...", "meta.llama3-..."
BEDROCK_MAKERS = {
    "anthropic": "anthropic", "meta": "meta", "amazon": "amazon", "mistral": "mistral", "cohere": "cohere",
    "ai21": "ai21", "deepseek": "deepseek", "qwen": "alibaba", "openai": "openai", "writer": "writer",
    "twelvelabs": "twelvelabs", "google": "google", "moonshot": "moonshotai", "moonshotai": "moonshotai",
    "minimax": "minimax", "nvidia": "nvidia", "zai": "zhipu", "stability": "stability",
}
# model names that say who made them (checked when no organisation prefix decides)
NAME_MAKERS = [
    (r"^(llama-3\.1-sonar|sonar|r1-1776|pplx)", "perplexity"),
    # other makers' fine-tunes named after their base model, sold under bare names (OpenRouter's
    # `llama-3-lumimaid-70b` is NeverSleep's, Fireworks' `yi-34b-200k-capybara` Nous Research's
    # Nous-Capybara-34B): checked before the base model's maker
    (r"^(llama-3(\.1)?-)?lumimaid", "neversleep"),
    (r"^llama-?v?3([.p]\d)?-nemotron", "nvidia"),
    (r"^(llama-?3\.1-)?typhoon", "scb10x"),
    (r"^yi-34b-200k-capybara", "nousresearch"),
    (r"^codellama-7b-instruct-solidity", "alfredpros"),
    (r"^flux-1-dev-controlnet-union", "instantx"),
    (r"^zai-glm", "zhipu"),              # Z.ai's GLM resold under the reseller's `zai-` prefix
    (r"^(gpt|chatgpt|o\d(-|$)|text-embedding-(3|ada)|davinci|babbage|curie|ada(-|$)|codex|computer-use|omni-moderation)", "openai"),
    (r"^claude", "anthropic"),
    (r"^(gemini|gemma|learnlm|text-embedding-00|embedding-001|textembedding-gecko|text-multilingual-embedding)", "google"),
    (r"^(mistral|mixtral|codestral|ministral|pixtral|magistral|devstral|voxtral|open-mistral|open-mixtral|open-codestral)", "mistral"),
    (r"^(qwen|qwq|qvq)", "alibaba"),
    (r"^deepseek", "deepseek"),
    (r"^grok", "xai"),
    (r"^(command|c4ai|aya|embed-(english|multilingual|v4))", "cohere"),
    (r"^(nova-|titan-|amazon)", "amazon"),
    (r"^(phi-|mai-ds)", "microsoft"),
    (r"^(glm|chatglm)", "zhipu"),
    (r"^(kimi|moonshot)", "moonshotai"),
    (r"^(jamba|j2-)", "ai21"),
    (r"^(minimax|abab)", "minimax"),
    (r"^(nemotron|nvidia)", "nvidia"),
    (r"^yi-", "01-ai"),
    (r"^(doubao|seed-)", "bytedance"),
    (r"^ernie", "baidu"),
    (r"^hunyuan", "tencent"),
    (r"^mimo", "xiaomi"),
    (r"^granite", "ibm"),
    (r"^(llama|meta-llama|codellama|code-llama|muse-)", "meta"),
    (r"^(voyage)", "voyage"),
    (r"^(mercury)", "inception"),
    (r"^(snowflake-arctic|arctic-)", "snowflake"),
    # Google's PaLM-era models (Vertex AI / PaLM API)
    (r"^((chat|text|code|codechat)-(bison|unicorn|gecko)|multimodalembedding|text-embedding-(preview|large-exp))", "google"),
    (r"^luminous-", "aleph-alpha"),
    (r"^(dbrx|mpt-)", "databricks"),
    # community models sold on Fireworks under their bare names
    (r"^cogito-", "deepcogito"),
    (r"^dolphin-", "cognitivecomputations"),
    (r"^starcoder", "bigcode"),
    (r"^zephyr-", "huggingfaceh4"),
    (r"^openchat", "openchat"),
    (r"^internvl", "opengvlab"),
    (r"^kat-(coder|dev)", "kwaipilot"),
    (r"^(firefunction|firellava|firesearch)", "fireworks"),
    (r"^mythomax", "gryphe"),
    (r"^toppy-", "undi95"),
    (r"^pythia-", "eleutherai"),
    (r"^stablecode", "stability"),
    (r"^openhermes", "teknium"),
    (r"^nous-", "nousresearch"),
    (r"^phind-", "phind"),
    (r"^chronos-hermes", "austism"),
    (r"^snorkel-", "snorkelai"),
    (r"^openorca", "open-orca"),
    (r"^dobby-", "sentientagi"),
]

MAKER_NAMES = {
    "openai": "OpenAI", "anthropic": "Anthropic", "google": "Google", "meta": "Meta", "mistral": "Mistral AI",
    "deepseek": "DeepSeek", "xai": "xAI", "cohere": "Cohere", "amazon": "Amazon", "alibaba": "Alibaba (Qwen)",
    "microsoft": "Microsoft", "nvidia": "NVIDIA", "moonshotai": "Moonshot AI", "zhipu": "Zhipu AI (Z.ai)",
    "minimax": "MiniMax", "ai21": "AI21 Labs", "01-ai": "01.AI", "bytedance": "ByteDance", "baidu": "Baidu",
    "tencent": "Tencent", "xiaomi": "Xiaomi", "ibm": "IBM", "perplexity": "Perplexity", "voyage": "Voyage AI",
    "inception": "Inception Labs", "arcee": "Arcee AI", "nousresearch": "Nous Research", "allenai": "Ai2",
    "liquid": "Liquid AI", "stepfun": "StepFun", "meituan": "Meituan", "writer": "Writer",
    "twelvelabs": "TwelveLabs", "morph": "Morph", "sarvam": "Sarvam AI", "snowflake": "Snowflake",
    "aleph-alpha": "Aleph Alpha", "databricks": "Databricks", "cognition": "Cognition", "vercel": "Vercel", "upstage": "Upstage",
    "inclusionai": "inclusionAI (Ant Group)", "fireworks": "Fireworks AI", "deepcogito": "Deep Cogito",
    "cognitivecomputations": "Cognitive Computations", "bigcode": "BigCode", "huggingfaceh4": "Hugging Face H4",
    "opengvlab": "OpenGVLab", "kwaipilot": "KwaiPilot", "gryphe": "Gryphe", "eleutherai": "EleutherAI",
    "stability": "Stability AI", "teknium": "Teknium", "phind": "Phind", "snorkelai": "Snorkel AI",
    "open-orca": "Open-Orca", "sentientagi": "Sentient", "undi95": "Undi95", "austism": "Austism",
    "neversleep": "NeverSleep", "scb10x": "SCB 10X", "instantx": "InstantX",
}

BEDROCK_REGION = re.compile(r"^(us|eu|apac|global|jp|au|us-gov|ca|sa|ap|in|uk|regional)\.")
# The account prefix of a Fireworks model path: genai-prices lists Fireworks'
# own, models.dev any account's.
FIREWORKS_ACCOUNT = re.compile(r"^accounts/fireworks/models/")
ANY_ACCOUNT = re.compile(r"^accounts/[^/]+/models/")
REGION_SEGMENT = re.compile(r"^([a-z]{2}(-gov)?-[a-z]+-\d|eu|us|us-gov|global|global-standard|apac|jp|au|invoke|converse)$")
FULL_DATE = re.compile(r"^(.*?)-(20\d\d)-?(\d\d)-?(\d\d)$")


@dataclass(frozen=True)
class Ref:
    channel: str
    api_id: str         # the id a caller sends on that channel (e.g. "us.anthropic.claude-...-v1:0")
    maker: str
    mkey: str           # normalised match key, unique per model of a maker
    regional: bool      # a regional / routing variant of another row (priced only if nothing better)
    fallback: bool = False   # a maker's secondary API: used only when no other row prices the channel
    version: tuple = None    # Bedrock model version (major, minor) taken off the id, e.g. (2, 1)


# `-v1:0`, `-v2`, `:0`, and `-1:0` (Bedrock's `openai.gpt-oss-120b-1:0`: version 1.0 without the v)
BEDROCK_VERSION = re.compile(r"(?:-v(\d+)(?::(\d+))?|-(\d+):(\d+)|:(\d+))$")


def bedrock_version(model: str):
    """("claude", (2, 1)) for "claude-v2:1"; the version suffix a Bedrock id carries, or None."""
    m = BEDROCK_VERSION.search(model)
    if not m:
        return model, None
    if m.group(1) is not None:
        ver = (int(m.group(1)), int(m.group(2) or 0))
    elif m.group(3) is not None:
        ver = (int(m.group(3)), int(m.group(4)))
    else:
        ver = (-1, int(m.group(5)))
    return model[: m.start()], ver


def bedrock_name(maker, model: str) -> str:
    """Bedrock drops DeepSeek's name from its ids: deepseek.r1 / deepseek.v3.2 -> deepseek-r1 / -v3.2.
    Bedrock's deepseek.v3-v1:0 is DeepSeek-V3.1 (models.dev names it so; Bedrock never sold V3)."""
    if maker == "deepseek" and re.match(r"^[rv]\d", model):
        return "deepseek-v3.1" if model == "v3" else "deepseek-" + model
    return model


def slugify(s: str) -> str:
    s = re.sub(r"[^a-z0-9.]+", "-", s.lower())
    return re.sub(r"-+", "-", s).strip("-.")


def normalise(model: str, channel: str = "") -> str:
    """Match key: lower case, punctuation and host naming habits smoothed out."""
    s = model.lower().replace("_", "-").replace(" ", "-")
    # a fine-tune's price under its base model's id with `.ft-` (genai-prices' gpt-4o-mini-2024-07-18.ft-,
    # the same price as its ft:gpt-4o-mini) is the `ft:` model: ft-gpt-4o-mini-2024-07-18
    s = re.sub(r"^(.+)\.ft-?$", r"ft-\1", s)
    s = re.sub(r"(\d)p(\d)", r"\1.\2", s)                      # fireworks: llama-v3p1 -> llama-v3.1
    s = re.sub(r"llama-?v(\d)", r"llama-\1", s)                # llama-v3 -> llama-3
    s = re.sub(r"^meta-llama-", "llama-", s)                   # Meta-Llama-3.1-8B -> llama-3.1-8b
    s = re.sub(r"llama(\d)", r"llama-\1", s)                   # llama3-1 -> llama-3-1
    s = re.sub(r"qwen-(\d)", r"qwen\1", s)                     # qwen-2.5 -> qwen2.5
    s = re.sub(r"gemma(\d)", r"gemma-\1", s)                   # gemma2-9b -> gemma-2-9b
    if channel == "groq":
        s = re.sub(r"^(llama-3[.-]?\d?-\d+b)-(versatile|instant)$", r"\1-instruct", s)
        s = re.sub(r"^llama-3-(\d+b)-8192$", r"llama-3-\1-instruct", s)
    s = s.replace(".", "-").replace(":", "-").replace("@", "-").replace("/", "-")
    s = re.sub(r"-instruct-turbo$", "-instruct", s)
    # Azure spells OpenAI's GPT-3.5 `gpt-35` (its deployments' `gpt-35-turbo-1106`): OpenAI's own
    # `gpt-3.5-turbo-1106` (OpenAI names no model `gpt-35`)
    s = re.sub(r"^gpt-35(?=-|$)", "gpt-3-5", s)
    # Vertex AI adds its own revision to a Mistral model's id (`mistral-large@2411-001`,
    # `mistral-small-2503@001`): Mistral's `mistral-large-2411` (Mistral's ids end in no revision)
    if channel == "vertex":
        s = re.sub(r"^((?:mistral|codestral|ministral|pixtral)-.+)-00\d$", r"\1", s)
    # ...and to AI21's Jamba 1.5 (`jamba-1.5-large@001`, which litellm lists under AI21's own API too):
    # AI21's ids carry no revision, and Vertex AI sells one Jamba 1.5 Large and one Jamba 1.5 Mini
    s = re.sub(r"^(jamba-.+)-00\d$", r"\1", s)
    # Code Llama: Fireworks' `code-llama-34b-instruct`, Together's `CodeLlama-34b-Instruct-hf` (the
    # Hugging Face format of the weights) and OpenRouter's `codellama-34b-instruct` are one model
    s = re.sub(r"^code-llama-", "codellama-", s)
    s = re.sub(r"^(codellama-\d+b(-instruct|-python)?)-hf$", r"\1", s)
    s = re.sub(r"-maas$", "", s)
    # AI21 names Jamba by size first from 1.6 on (its API's `jamba-large-1.6`); OpenRouter keeps
    # the 1.5 order (`ai21/jamba-1.6-large`): one model per size and version
    s = re.sub(r"^jamba-(1-[6-9]|[2-9]-\d+)-(large|mini)$", r"jamba-\2-\1", s)
    # Baidu publishes each ERNIE 4.5 model twice, "-Paddle" (PaddlePaddle weights) and "-PT"
    # (Transformer-style PyTorch weights), its model cards say: one model (as Code Llama's `-hf`)
    s = re.sub(r"^(ernie-4-5-.+)-(pt|paddle)$", r"\1", s)
    m = re.match(r"^claude-(\d+)(?:-(\d))?-(opus|sonnet|haiku)(.*)$", s)
    if m and int(m.group(1)) >= 4:                              # claude-4-opus -> claude-opus-4
        s = f"claude-{m.group(3)}-{m.group(1)}" + (f"-{m.group(2)}" if m.group(2) else "") + m.group(4)
    s = re.sub(r"^(claude-(?:opus|sonnet|haiku)-\d+)-0$", r"\1", s)   # claude-opus-4-0 -> claude-opus-4
    s = re.sub(r"-default$", "", s)                            # vertex claude-opus-4-6@default
    s = re.sub(r"-+", "-", s).strip("-")
    s = SAME_MODEL.get(s, s)
    return OWN_API_NAMES.get(s, s) if channel == "official" else s


# one model that two channels spell apart beyond the habits above (match key -> the other channel's
# key), each the maker's one release of that name (the makers' pages: tools/dataset/former_ids.json)
SAME_MODEL = {
    # Snorkel AI's one PairRM-DPO model, the 7B Snorkel-Mistral-PairRM-DPO: Fireworks names the size
    "snorkel-mistral-7b-pairrm-dpo": "snorkel-mistral-pairrm-dpo",
    # NVIDIA's Llama-3.1-Nemotron-70B-Instruct-HF is the same model converted to the Hugging Face
    # format (its card says so), as Together's Code Llama `-hf` ids are Code Llama
    "llama-3-1-nemotron-70b-instruct-hf": "llama-3-1-nemotron-70b-instruct",
    # Sao10K's L3-8B-Lunaris-v1, L3-70B-Euryale-v2.1 and L3.1-70B-Euryale-v2.2: Novita's ids keep the
    # Hugging Face names, OpenRouter's put the size last and drop the version
    "l3-8b-lunaris": "l3-lunaris-8b",
    "l3-70b-euryale-v2-1": "l3-euryale-70b",
    "l31-70b-euryale-v2-2": "l3-1-euryale-70b",
    # Deep Cogito's Cogito v2.1 671B (Hugging Face deepcogito/cogito-671b-v2.1): Fireworks spells the
    # version `v2-p1`, OpenRouter `cogito-v2.1-671b`
    "cogito-671b-v2-p1": "cogito-v2-1-671b",
    # Fireworks names Microsoft's Phi-2 (2.7B parameters) `phi-2-3b`; Together `microsoft/phi-2`
    "phi-2-3b": "phi-2",
    # DeepSeek's distill of R1-0528 into Qwen3 8B is DeepSeek-R1-0528-Qwen3-8B (its model card);
    # Fireworks calls it `deepseek-r1-0528-distill-qwen3-8b`
    "deepseek-r1-0528-distill-qwen3-8b": "deepseek-r1-0528-qwen3-8b",
    # MiniMax's API id of MiniMax-M2-her is `M2-her`, without the `MiniMax-` its other ids carry
    "m2-her": "minimax-m2-her",
    # xAI's model page of Grok 4.20 lists `grok-4.20-reasoning`, `grok-4.20-beta-reasoning` and
    # `grok-4.20-reasoning-gv2` among the aliases of one model (former_ids.json); the model keeps
    # the id Azure and Vertex AI sell it under too
    "grok-4-20-beta-reasoning": "grok-4-20-reasoning",
    "grok-4-20-reasoning-gv2": "grok-4-20-reasoning",
    # xAI's model page of Grok 4.20 (Non-Reasoning) lists `grok-4.20-non-reasoning` and
    # `grok-4.20-non-reasoning-gv2` among the aliases of one model (former_ids.json)
    "grok-4-20-non-reasoning-gv2": "grok-4-20-non-reasoning",
    # NVIDIA's one Nemotron 3.5 Super VL (Hugging Face nvidia/NVIDIA-Nemotron-3.5-Super-VL-120B-A12B-*):
    # Together keeps the "NVIDIA-" of the Hugging Face name, OpenRouter drops it
    "nvidia-nemotron-3-5-super-vl": "nemotron-3-5-super-vl",
    # Eric Hartford's Dolphin 2.6 Mixtral 8x7B (Hugging Face cognitivecomputations/dolphin-2.6-mixtral-8x7b):
    # Fireworks names the version (`dolphin-2p6-mixtral-8x7b`), OpenRouter's page of
    # `cognitivecomputations/dolphin-mixtral-8x7b` titles it "Dolphin 2.6 Mixtral 8x7B"
    "dolphin-2-6-mixtral-8x7b": "dolphin-mixtral-8x7b",
    # Bedrock's version rule (BEDROCK_VERSION) takes off a `-vN` that is part of the maker's name.
    # Cohere's models page gives the Bedrock id of each of its models: `command` is
    # `cohere.command-text-v14`, `command-light` `cohere.command-light-text-v14`, `embed-english-v3.0`
    # `cohere.embed-english-v3`, `embed-multilingual-v3.0` `cohere.embed-multilingual-v3`; AWS's
    # card of Embed v4 gives `cohere.embed-v4:0`, Cohere's `embed-v4.0`
    "command-text": "command",
    "command-light-text": "command-light",
    "embed-english": "embed-english-v3-0",
    "embed-multilingual": "embed-multilingual-v3-0",
    "embed": "embed-v4-0",
    # NVIDIA-Nemotron-Nano-9B-v2: Bedrock's `nvidia.nemotron-nano-9b-v2` loses its `-v2` to that rule,
    # Together and Fireworks keep the "NVIDIA-" of the Hugging Face name, OpenRouter drops it
    "nemotron-nano-9b": "nemotron-nano-9b-v2",
    "nvidia-nemotron-nano-9b-v2": "nemotron-nano-9b-v2",
    # Amazon Nova: OpenRouter's `amazon/nova-lite-v1` keeps the version of Bedrock's
    # `amazon.nova-lite-v1:0`, which the version rule takes off; Amazon sells one Nova Lite
    "nova-micro-v1": "nova-micro",
    "nova-lite-v1": "nova-lite",
    "nova-pro-v1": "nova-pro",
    "nova-2-lite-v1": "nova-2-lite",
    # Anthropic's page of Claude on Vertex AI names Claude Sonnet 3.5 (v2) `claude-3-5-sonnet-v2@20241022`
    # there, Anthropic's own `claude-3-5-sonnet-20241022`
    "claude-3-5-sonnet-v2-20241022": "claude-3-5-sonnet-20241022",
    "claude-3-5-sonnet-v2": "claude-3-5-sonnet-20241022",
    # Meta's Llama 3.2 of 11B and 90B are its vision models alone (Llama-3.2-11B-Vision-Instruct; the
    # text models are 1B and 3B): Bedrock's `meta.llama3-2-11b-instruct-v1:0` is the 11B Vision Instruct
    "llama-3-2-11b-instruct": "llama-3-2-11b-vision-instruct",
    "llama-3-2-90b-instruct": "llama-3-2-90b-vision-instruct",
}


# Mistral's model cards (tools/dataset/mistral_releases.json, read from Mistral's model schema): each
# card's name, its `api_names` (the pinned id first) and its release day
MISTRAL_CARDS = FACTS / "mistral_releases.json"


def card_names(cards):
    """The ids a maker's model card gives its model that are another card's model's name (for a
    `-latest` id, the name before `-latest`): {match key of the id: (match key of the card's pinned
    id, the card's release day)}. On the maker's own API such an id names the card's model, not the
    model of that name (which the channels that resell it sell under it). Mistral's card of Mistral
    Medium 3.5 gives `api_names: ['mistral-medium-3-5', 'mistral-medium-3', 'mistral-medium-latest']`:
    its `mistral-medium-3` (1.5 / 7.5, litellm's `mistral/mistral-medium-3` from 1.100.5) is not
    Mistral Medium 3 of 2025-05, the card "Mistral Medium 3 (mistral-medium-3-25-05)", which
    Vertex AI and OpenRouter sell as `mistral-medium-3` (0.4 / 2). Its card of Ministral 3 8B gives
    `['ministral-8b-2512', 'ministral-8b-latest']`: `ministral-8b-latest` is not Ministral 8B 24.10
    (the card "Ministral 8B (ministral-8b-24-1)", which OpenRouter sells as `ministral-8b`). Left to
    the general rules: an id that is its own card's name (`codestral-latest` of Codestral 25.08), and
    an id two cards give (`voxtral-mini-latest`: Voxtral Mini's and Voxtral Mini Transcribe 2's)."""
    def name(card):
        return normalise(card["provider_model"].split(" (", 1)[0])
    names = {name(c) for c in cards}
    givers = defaultdict(list)
    for c in cards:
        for api in c["api_names"][1:]:
            givers[normalise(api)].append(c)
    return {key: (normalise(c["api_names"][0]), c["release_date"]) for key, (c, *more) in sorted(givers.items())
            if not more and (base := key.removesuffix("-latest")) in names and base != name(c)}


CARD_NAMES = card_names(json.loads(MISTRAL_CARDS.read_text())["releases"])
# an id of the maker's own API that names a newer model than the channels' id of the same spelling
# (normalise, channel `official`): Mistral's `mistral-medium-3` is Mistral Medium 3.5
OWN_API_NAMES = {key: named for key, (named, _day) in CARD_NAMES.items() if not key.endswith("-latest")}
# a `-latest` id names the card's model, not the undated base of the same name (entities.entity_of),
# from the card's release day, the day the card gave it the id (Ministral 3 8B's 2025-12-02: its
# commit of that day, mistralai/platform-docs-public 4975b095, took `ministral-8b-latest` from the card
# of Ministral 8B 24.10). A listing that dates itself before that day (models.dev's `release_date`)
# describes the model the id named then: it stays with the base (latest_named).
# (maker, match key of the `-latest` id) -> (the match key of the model the card names, the day)
LATEST_NAMES = {("mistral", key): named for key, named in CARD_NAMES.items() if key.endswith("-latest")}


def latest_named(maker: str, mkey: str, listed_on=None):
    """The match key a `-latest` id of LATEST_NAMES resolves to: the model the maker's card names,
    or, for a listing dated (`listed_on`) before the card gave it the id, the undated base it
    named then. None for any other id."""
    named = LATEST_NAMES.get((maker, mkey))
    if not named:
        return None
    key, since = named
    return mkey[: -len("-latest")] if listed_on and listed_on < since else key


def split_date(mkey: str):
    """(base, yyyymmdd) for a match key ending in a full date, else (mkey, None)."""
    m = FULL_DATE.match(mkey)
    if m and 1 <= int(m.group(3)) <= 12:
        return m.group(1), m.group(2) + m.group(3) + m.group(4)
    return mkey, None


def name_maker(model: str):
    s = model.lower()
    for pat, maker in NAME_MAKERS:
        if re.match(pat, s):
            return maker
    return None


def split_org(model: str):
    """("meta-llama", "Llama-3.1-8B") for "meta-llama/Llama-3.1-8B"; (None, model) without a prefix."""
    if "/" in model:
        org, rest = model.split("/", 1)
        return org.lower(), rest
    return None, model


def maker_for(org, model, official_maker=None, ledger_maker=None):
    if org:
        return ORG_MAKERS.get(org, slugify(org))
    return name_maker(model) or (ledger_maker if ledger_maker and ledger_maker != "other" else None) or official_maker


def litellm_ref(key: str, entry: dict, ledger_maker=None):
    """Ref for a litellm price-file row, or (None, reason) when it is left out."""
    prov = entry.get("litellm_provider") or ""
    if prov.startswith("vertex_ai"):
        channel, official = "vertex", None
    elif prov in LITELLM_CHANNEL:
        channel, official = LITELLM_CHANNEL[prov], None
    elif prov in LITELLM_OFFICIAL:
        channel, official = "official", LITELLM_OFFICIAL[prov]
    else:
        return None, "reseller_outside_the_nine_channels"
    rest = key
    for p in (prov, "vertex_ai", "fireworks_ai", "bedrock", "bedrock_converse", "azure_ai", "azure",
              "text-completion-openai", "openai", "together_ai"):
        if rest.startswith(p + "/"):
            rest = rest[len(p) + 1:]
            break
    if rest.startswith("claude_platform/"):
        return None, "claude_platform_on_aws_marketplace"
    if "/routers/" in rest or "router" in rest.split("/")[-1] or rest.startswith("together-ai-"):
        return None, "router_or_size_bucket_not_a_model"
    if rest.startswith("ft:") or "/ft:" in rest:
        return None, "fine_tuning_price"
    if "commitment" in rest or "provisioned" in rest:
        return None, "reserved_capacity_price"
    regional = False
    parts = rest.split("/")
    while len(parts) > 1 and REGION_SEGMENT.match(parts[0]) and channel in ("azure", "aws_bedrock"):
        parts = parts[1:]
        regional = True
    rest = "/".join(parts)
    api_id = rest
    if channel == "fireworks":
        rest = ANY_ACCOUNT.sub("", rest)
        api_id = "accounts/fireworks/models/" + rest
    if channel == "openrouter" and ":" in rest:
        return None, "openrouter_variant_id"
    if prov in LITELLM_ROUTING or (channel == "aws_bedrock" and BEDROCK_REGION.match(rest)):
        regional = True
    model, org, version = split_listed_id(rest, channel == "aws_bedrock", None)
    if channel == "vertex":
        model = model.replace("@", "-")
    if prov == "databricks":
        model = re.sub(r"^databricks-", "", model)
        if not name_maker(model):
            return None, "resold_on_another_makers_api"
    if channel == "azure":
        model = re.sub(r"^FW-", "", model)          # Fireworks-hosted models in Azure AI Foundry
    if ledger_maker:
        ledger_maker = ORG_MAKERS.get(ledger_maker, ledger_maker)
    org = own_prefix_maker(org, model, official)
    maker = org or name_maker(model) or (ledger_maker if ledger_maker and ledger_maker != "other" else None) or official
    if not maker:
        return None, "maker_unknown"
    if channel == "official" and maker != official:
        return None, "resold_on_another_makers_api"
    return Ref(channel, api_id, maker, normalise(model, channel), regional,
               prov in OFFICIAL_FALLBACK, version), None


def own_prefix_maker(org, model, official):
    """The maker of a model an official API lists under its own prefix: Perplexity's API serves
    other makers' open models as `perplexity/kimi-k3` (Moonshot's Kimi K3), `perplexity/glm-5.3`,
    `perplexity/nemotron-3-ultra-550b-a55b`; where the name says another maker, that maker made it
    (a resale, not the official API's own model). Any other org prefix stands."""
    named = name_maker(model)
    return named if org and org == official and named and named != org else org


def split_listed_id(model_id: str, bedrock: bool, account):
    """(model, org, version) of a model id as a price list gives it: a Bedrock id without its
    region prefix and version suffix, its maker from the vendor prefix; any other id without the
    `account` prefix (a pattern, or None), its maker from an `org/` part."""
    model, org, version = model_id, None, None
    if bedrock:
        model = BEDROCK_REGION.sub("", model)
        model, version = bedrock_version(model)
        if "." in model.split("-")[0]:
            pre, model = model.split(".", 1)
            org = BEDROCK_MAKERS.get(pre, slugify(pre))
            model = bedrock_name(org, model)
    else:
        if account:
            model = account.sub("", model)
        o, model = split_org(model)
        if o and "/" in model:          # "deepseek/deepseek-r1/community" (Novita): the path is the name
            model = model.replace("/", "-")
        org = ORG_MAKERS.get(o, slugify(o)) if o else None
    return model, org, version


def genai_ref(provider_id: str, model_id: str, maker_hint=None):
    """Ref for a genai-prices model; `maker_hint` (from its match rules) when the id names no maker."""
    if provider_id in GENAI_CHANNEL:
        channel, official = GENAI_CHANNEL[provider_id], None
    elif provider_id in GENAI_OFFICIAL:
        channel, official = "official", GENAI_OFFICIAL[provider_id]
    else:
        return None, "reseller_outside_the_nine_channels"
    if ":" in model_id and channel == "openrouter":
        return None, "openrouter_variant_id"
    model, org, version = split_listed_id(model_id, channel == "aws_bedrock", FIREWORKS_ACCOUNT)
    org = own_prefix_maker(org, model, official)
    maker = org or name_maker(model) or official or maker_hint
    if not maker:
        return None, "maker_unknown"
    if channel == "official" and maker != official:
        if provider_id == "google":             # Google's price list also covers partner models on Vertex AI
            channel = "vertex"
        else:
            return None, "resold_on_another_makers_api"
    return Ref(channel, model_id, maker, normalise(model, channel), False,
               provider_id in GENAI_FALLBACK, version), None


def modelsdev_ref(provider_id: str, model_id: str):
    if provider_id in MODELSDEV_CHANNEL:
        channel, official = MODELSDEV_CHANNEL[provider_id], None
    elif provider_id in MODELSDEV_OFFICIAL:
        channel, official = "official", MODELSDEV_OFFICIAL[provider_id]
    else:
        channel, official = "other", None
    model, org, version = split_listed_id(model_id, provider_id == "amazon-bedrock", ANY_ACCOUNT)
    org = own_prefix_maker(org, model, official)
    maker = org or name_maker(model) or official
    if not maker:
        return None
    if channel == "official" and maker != official:
        channel = "other"                       # another maker's model resold on a maker's API
    return Ref(channel, model_id, maker, normalise(model, channel), False,
               provider_id in MODELSDEV_FALLBACK, version)
