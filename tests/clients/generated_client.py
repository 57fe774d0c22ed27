#!/usr/bin/env python3
"""A Python client generated from the served OpenAPI document, driven as a user would.

    generated_client.py BASE_URL WORK_DIR < calls.json

Fetches BASE_URL/api/v1/openapi.json, generates a client from it with
openapi-python-client (the venv of scripts/ensure-client-tools.sh; RSS read
as text) into WORK_DIR, imports it, and makes each call of the JSON list on stdin:
`{"operation": "<module name, the operationId in snake case>", "arguments":
{...}}`, the arguments as JSON and converted here to the types the generated
function declares (enums, dates, request-body models), so that every value
goes out the way the generated code sends it. Prints one JSON object:
`operations` (every operation the generated client has), `generator` (what the
generator printed) and `results`, one per call: the URL sent, the status, the
content type, the class the client parsed the body into, the body (`json`
or `text`) and `round_trip`: where the parsed object, written back with
`to_dict()`, differs from the JSON the server sent (timestamps compared as
instants), empty when the document describes the answer exactly.
"""

import datetime
import enum
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import types
import typing
import urllib.request
from pathlib import Path

PACKAGE = "pricing_client"


def generate(base, work):
    doc = work / "openapi.json"
    with urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=10) as answer:
        doc.write_bytes(answer.read())
    # The generator reads JSON, text/* and octet-stream bodies; the RSS feed's
    # application/rss+xml is mapped to text, as the generator's documentation
    # says to (docs/api.md, "Generated clients").
    config = work / "generator.json"
    config.write_text(json.dumps({"content_type_overrides": {"application/rss+xml": "text/xml"}}))
    bin_dir = Path(sys.executable).parent
    # The generator formats its output with ruff from the same venv, as it does for its users.
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    run = subprocess.run(
        [str(bin_dir / "openapi-python-client"), "generate", "--path", str(doc),
         "--config", str(config), "--output-path", str(work / PACKAGE), "--meta", "none",
         "--overwrite"],
        capture_output=True, text=True, env=env, timeout=300,
    )
    output = run.stdout + run.stderr
    if run.returncode != 0:
        sys.exit(f"openapi-python-client failed ({run.returncode}):\n{output}")
    return output


def is_unset(hint):
    return hint is type(None) or getattr(hint, "__name__", "") == "Unset"


def convert(hint, value):
    """`value` (JSON) as the type `hint` of a generated function's parameter."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        problems = []
        for option in (a for a in typing.get_args(hint) if not is_unset(a)):
            try:
                return convert(option, value)
            except (TypeError, ValueError, KeyError) as problem:
                problems.append(f"{option}: {problem}")
        raise TypeError(f"{value!r} fits none of {hint}: {problems}")
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(value, list):
            raise TypeError(f"{value!r} is not a list")
        return [convert(item, v) for v in value]
    if isinstance(hint, type):
        if issubclass(hint, enum.Enum):
            return hint(value)
        if hint is datetime.date:
            return datetime.date.fromisoformat(value)
        if hint is datetime.datetime:
            return datetime.datetime.fromisoformat(value)
        if hasattr(hint, "from_dict"):
            if not isinstance(value, dict):
                raise TypeError(f"{value!r} is not an object")
            return hint.from_dict(value)
        if hint in (str, int, float, bool):
            if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
                raise TypeError(f"{value!r} is not {hint.__name__}")
            return value
    return value


def instant(text):
    if not isinstance(text, str) or "T" not in text:
        return None
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        return None


def differences(got, want, at=""):
    """Where `got` (to_dict of the parsed body) differs from `want` (the JSON sent)."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want:
                out.append(f"{at}/{key}: only in {'the parsed object' if key in got else 'the answer'}")
            else:
                out += differences(got[key], want[key], f"{at}/{key}")
        return out
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{at}: {len(got)} items parsed, {len(want)} sent"]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in differences(g, w, f"{at}/{i}")]
    if got == want and type(got) is type(want):
        return []
    if instant(got) is not None and instant(got) == instant(want):
        return []
    return [f"{at}: parsed {got!r}, sent {want!r}"]


def operations(package):
    """Every operation module of the generated client, by name."""
    found = {}
    api = importlib.import_module(f"{package}.api")
    for tag in pkgutil.iter_modules(api.__path__):
        group = importlib.import_module(f"{package}.api.{tag.name}")
        for op in pkgutil.iter_modules(group.__path__):
            found[op.name] = importlib.import_module(f"{package}.api.{tag.name}.{op.name}")
    return found


def main():
    base, work = sys.argv[1].rstrip("/"), Path(sys.argv[2])
    calls = json.load(sys.stdin)
    work.mkdir(parents=True, exist_ok=True)
    generator = generate(base, work)
    sys.path.insert(0, str(work))
    client_module = importlib.import_module(PACKAGE)
    modules = operations(PACKAGE)
    sent = []
    hooks = {"event_hooks": {"request": [lambda request: sent.append(str(request.url))]}}
    client = client_module.Client(base_url=base, raise_on_unexpected_status=True, timeout=30.0,
                                  httpx_args=hooks)
    results = []
    for call in calls:
        function = modules[call["operation"]].sync_detailed
        hints = typing.get_type_hints(function)
        arguments = {name: convert(hints[name], value) for name, value in call["arguments"].items()}
        # a call with an API key sends it as the generated client's bearer token
        caller = client if not call.get("token") else client_module.AuthenticatedClient(
            base_url=base, token=call["token"], raise_on_unexpected_status=True, timeout=30.0,
            httpx_args=hooks)
        response = function(client=caller, **arguments)
        content_type = response.headers.get("content-type", "")
        result = {
            "operation": call["operation"],
            "url": sent[-1],
            "status": int(response.status_code),
            "content_type": content_type,
            "parsed_type": type(response.parsed).__name__,
        }
        if "json" in content_type:
            body = json.loads(response.content)
            result["json"] = body
            parsed = response.parsed
            result["round_trip"] = (
                differences(parsed.to_dict(), body) if hasattr(parsed, "to_dict")
                else [f"the body was not parsed into a model ({type(parsed).__name__})"]
            )
        else:
            result["text"] = response.content.decode("utf-8")
        results.append(result)
    json.dump({"operations": sorted(modules), "generator": generator, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
