"""What each model is for: its `kind`, and its true input and output modalities.

A kind is one of KINDS: `chat` (text generation, reasoning and vision-in chat models included),
`embedding`, `rerank`, `image` (generation or editing), `audio` (speech-to-text, text-to-speech,
realtime audio), `video`, `ocr`, `moderation`. Every source that says something about a model
casts a vote; the vote of the strongest kind of evidence decides (RULES, strongest first):

1. `maker`: the maker's own model card or API documentation, as read into kinds.json (URL, day
   read, what it says). Used where the sources below are silent or wrong about a model.
2. `litellm mode`: litellm's `mode` when it names an API other than text generation
   (`embedding`, `rerank`, `image_generation`, `audio_speech`, `realtime`, ...): a model is served
   through its purpose's endpoint. Each channel's newest row votes; the mode most channels give
   counts, a tie going to the mode other than chat (litellm labelled realtime and text-to-speech
   models `chat` in its older releases and on some channels).
3. `output modalities`: models.dev's listing of the model (the maker's own, else OpenRouter's,
   else the one most listings agree on) when it outputs images (an image generator, even one that
   also writes text), or audio or video and no text.
4. `name`: the maker's own id names the purpose (`embed`, `rerank`, `tts`, `transcribe`,
   `realtime`, `ocr`, `guard`, `flux`, ...; NAME_RULES).
5. `models.dev family`: an embedding family (`text-embedding`, `cohere-embed`, ...).
6. `litellm chat`: litellm's `chat`, `completion` or `responses` mode, as most channels give it. Weak:
   it is also the mode
   litellm gives any model it calls through a chat endpoint (FLUX on Fireworks, Gemini's image
   models, OCR models served as chat completions).
7. `default`: a model no source says more about is a text-generation model; every source of the
   build lists it with prices per token of text.

Where two sources name different kinds, the model and the votes are reported as a disagreement
(snapshot report `kinds.disagreements`, printed by report.py); the stronger vote is kept.
Standard library only.
"""
import json
import re
from collections import Counter
from pathlib import Path

from . import FACTS

KINDS = ("chat", "embedding", "rerank", "image", "audio", "video", "ocr", "moderation")
MODALITIES = ("text", "image", "audio", "video")
RULES = ("maker", "litellm mode", "output modalities", "name", "models.dev family", "litellm chat", "default")
# votes that never decide, listed with a disagreement: the kinds of litellm's rows outvoted by the rest
OUTVOTED = "litellm outvoted"
# kinds whose models return no output tokens: their providers bill input only, so the build
# publishes no output price for them (snapshot.py, Snapshot.kept)
NO_OUTPUT_KINDS = {"embedding", "rerank"}
NO_OUTPUT_RULE = "output price of an embedding or rerank model (it returns no output tokens)"
# channels that bill an image model per denoising step or per image, never per token: Fireworks
# ("For image generation models like SDXL we charge based on the number of inference steps
# (denoising iterations)", its pricing page; docs/publishing.md, "Screens"). A per-token figure a
# source gives an image model there (litellm's FLUX rows on Fireworks) is no price of it
PER_STEP_IMAGE_CHANNELS = {"fireworks"}
PER_STEP_IMAGE_RULE = "image model on a channel that bills images per step or per image: no per-token price"

PATH = FACTS / "kinds.json"

LITELLM_MODES = {
    "chat": "chat", "completion": "chat", "responses": "chat",
    "embedding": "embedding", "rerank": "rerank",
    "image_generation": "image", "image_edit": "image",
    "audio_transcription": "audio", "audio_speech": "audio", "realtime": "audio",
    "video_generation": "video", "moderation": "moderation", "ocr": "ocr",
}
# the maker's id, matched on the model slug (the part after `provider:`), first match wins
NAME_RULES = (
    (re.compile(r"rerank"), "rerank"),
    (re.compile(r"embed|(^|[-_])(bge|e5|gte)([-_]|$)"), "embedding"),
    (re.compile(r"ocr"), "ocr"),
    (re.compile(r"guard|moderation"), "moderation"),
    (re.compile(r"(^|[-_.])(tts|transcribe|whisper|realtime|live|native-audio|audio)([-_.]|$)"), "audio"),
    (re.compile(r"(^|[-_.])(image|flux|stable-diffusion|sdxl|imagen|dall-e)([-_.]|$)"), "image"),
    (re.compile(r"(^|[-_.])(veo|sora)([-_.]|$)"), "video"),
)
EMBEDDING_FAMILIES = re.compile(r"embed|^bge$|^voyage$")


def load(path=PATH):
    """The maker statements: [{"match": regex on the model id, "kind", "input"?, "output"?,
    "url", "read", "says"}]."""
    return json.loads(Path(path).read_text())["statements"]


def statement_for(model_id, statements):
    """The first maker statement whose `match` the whole model id matches, or None."""
    return next((s for s in statements if re.fullmatch(s["match"], model_id)), None)


def listing(listings):
    """The models.dev listing to read modalities from, of [(provider id, channel, modalities)]:
    the maker's own (the official channel), else OpenRouter's, else the modalities most listings
    agree on (ties: the first of them by provider id); None without a listing that has any."""
    rows = [(pid, ch, m) for pid, ch, m in listings if m and (m.get("input") or m.get("output"))]
    for want in ("official", "openrouter"):
        own = [m for _pid, ch, m in sorted(rows, key=lambda r: r[0]) if ch == want]
        if own:
            return own[0]
    if not rows:
        return None
    key = [(tuple(x for x in MODALITIES if x in (m.get("input") or [])),
            tuple(x for x in MODALITIES if x in (m.get("output") or []))) for _p, _c, m in sorted(rows, key=lambda r: r[0])]
    best = max(Counter(key).items(), key=lambda kv: (kv[1], -key.index(kv[0])))[0]
    return {"input": list(best[0]), "output": list(best[1])}


def name_kind(slug):
    return next((k for rx, k in NAME_RULES if rx.search(slug)), None)


def votes(model_id, modes, chosen, families, statement):
    """[(rule, kind, detail)] of every source that says something, in RULES order."""
    out = []
    if statement:
        out.append(("maker", statement["kind"], statement["url"]))
    by_kind = Counter()
    for mode, n in modes.items():
        if mode in LITELLM_MODES:
            by_kind[LITELLM_MODES[mode]] += n
    lit = None
    if by_kind:
        lit = max(by_kind.items(), key=lambda kv: (kv[1], kv[0] != "chat", kv[0]))[0]
        detail = ", ".join(f"{m} {n}" for m, n in sorted(modes.items(), key=lambda kv: (-kv[1], str(kv[0]))))
        if lit != "chat":
            out.append(("litellm mode", lit, detail))
    outs = [x for x in MODALITIES if x in ((chosen or {}).get("output") or [])]
    if "image" in outs:
        out.append(("output modalities", "image", "+".join(outs)))
    elif outs and "text" not in outs:
        out.append(("output modalities", outs[0], "+".join(outs)))
    k = name_kind(model_id.split(":", 1)[1])
    if k:
        out.append(("name", k, model_id.split(":", 1)[1]))
    fams = sorted(f for f in families if f and EMBEDDING_FAMILIES.search(f))
    if fams:
        out.append(("models.dev family", "embedding", fams[0]))
    if lit == "chat":
        out.append(("litellm chat", "chat", detail))
    for k in sorted(set(by_kind) - {lit}):
        out.append((OUTVOTED, k, detail))
    return sorted(out, key=lambda v: RULES.index(v[0]) if v[0] in RULES else len(RULES))


def classify(model_id, modes, chosen, families, statement):
    """(kind, deciding rule, disagreement or None) of one model: `modes` a Counter of litellm's
    modes of its rows, `chosen` the models.dev listing read (listing()), `families` its models.dev families,
    `statement` its maker statement (statement_for) or None. A disagreement is {"model", "kind",
    "rule", "votes": [[rule, kind, detail], ...]} where the votes name more than one kind."""
    vs = votes(model_id, modes, chosen, families, statement)
    if not vs or vs[0][0] == OUTVOTED:
        return "chat", "default", None
    rule, kind, _d = vs[0]
    dis = None
    if len({k for _r, k, _d in vs}) > 1:
        dis = {"model": model_id, "kind": kind, "rule": rule, "votes": [list(v) for v in vs]}
    return kind, rule, dis


def modalities(kind, model_id, chosen, entry, statement=None):
    """(input modalities, output modalities, modality) of a model of `kind`: its maker
    statement's where it states them, else the models.dev listing read (`chosen`) where it gives
    them, else what the litellm row (`entry`) supports
    (text, plus image / audio / video input and audio output where flagged), else what the kind
    takes and makes; then made to agree with the kind: an embedding or rerank model outputs
    scores or vectors, none of the four; an image model outputs images; a text-to-speech model
    outputs audio, a speech-to-text model takes it."""
    mods = statement if statement and "input" in statement else chosen or {}
    inp = [x for x in MODALITIES if x in (mods.get("input") or [])]
    outp = [x for x in MODALITIES if x in (mods.get("output") or [])]
    slug = model_id.split(":", 1)[1]
    if not inp:
        inp = ["text"]
        if entry and entry.get("supports_vision") or kind == "ocr":
            inp.append("image")
        if entry and entry.get("supports_audio_input") or kind == "audio" and not re.search(r"tts|speech", slug):
            inp.append("audio")
        if entry and entry.get("supports_video_input"):
            inp.append("video")
    if not outp:
        outp = ["text"]
        if entry and entry.get("supports_audio_output") or kind == "audio" and not re.search(r"transcribe|whisper", slug):
            outp.append("audio")
    if kind in NO_OUTPUT_KINDS:
        outp = []
        if re.search(r"multimodal|image", slug):
            inp.append("image")
    elif kind == "image" and "image" not in outp:
        outp = ["image"]
    elif kind == "audio" and re.search(r"tts|speech", slug):
        outp = ["audio"]
    elif kind == "audio" and re.search(r"transcribe|whisper", slug):
        inp, outp = sorted(set(inp) | {"audio"}, key=MODALITIES.index), ["text"]
    inp = sorted(set(inp), key=MODALITIES.index)
    outp = sorted(set(outp), key=MODALITIES.index)
    return inp, outp, ("text" if "text" in inp else inp[0])


def counts(models, prices):
    """report.kinds's counts: models per kind, and per kind the models priced on each channel."""
    kind_of = {m["id"]: m["kind"] for m in models}
    per_channel = {}
    for p in prices:
        per_channel.setdefault(kind_of[p["model"]], {}).setdefault(p["channel"], set()).add(p["model"])
    return {"models_by_kind": {k: sum(1 for m in models if m["kind"] == k) for k in KINDS},
            "models_by_kind_and_channel": {k: {ch: len(ms) for ch, ms in sorted(per_channel[k].items())}
                                           for k in KINDS if k in per_channel}}


def report_lines(snap):
    """The data report's section on kinds (report.py): models per kind, per kind the models priced
    on each channel, and every disagreement of the sources with the vote that decided it."""
    rep = snap["report"].get("kinds")
    if not rep:
        return ["kinds: none in this snapshot"]
    channels = sorted({ch for per in rep["models_by_kind_and_channel"].values() for ch in per})
    out = ["models per kind: " + ", ".join(f"{k} {n}" for k, n in rep["models_by_kind"].items()),
           "models per kind and channel (a model priced on several channels counts on each):",
           "  " + " " * 11 + "".join(f"{ch:>12s}" for ch in channels)]
    for k, per in rep["models_by_kind_and_channel"].items():
        out.append(f"  {k:11s}" + "".join(f"{per.get(ch, 0):12d}" for ch in channels))
    out.append(f"sources that disagree on a model's kind: {len(rep['disagreements'])} models "
               "(kind kept, the rule that decided; then every vote: rule, kind, what it read)")
    for d in rep["disagreements"]:
        votes = "; ".join(f"{r}: {k} ({detail})" for r, k, detail in d["votes"])
        out.append(f"  {d['model']}: {d['kind']} by {d['rule']}; {votes}")
    return out
