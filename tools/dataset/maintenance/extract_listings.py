"""Extract the day each model id first appears in a first-party listing kept in a git repository,
into a facts file under tools/dataset/listings/ that the build reads (pipeline/sources/listings.py).

    cd tools/dataset && python3 -m maintenance.extract_listings sdk CLONE PACKAGE_DIR ID_REGEX OUT [--files GLOB] --repository OWNER/NAME --license L
    cd tools/dataset && python3 -m maintenance.extract_listings table CLONE PATH ID_REGEX OUT --repository OWNER/NAME --license L
    cd tools/dataset && python3 -m maintenance.extract_listings bedrock CLONE OUT --repository OWNER/NAME --license L
    cd tools/dataset && python3 -m maintenance.extract_listings genai CLONE OUT --repository OWNER/NAME --license L
    cd tools/dataset && python3 -m maintenance.extract_listings catalogue CLONE PATH CHANNEL OUT --repository OWNER/NAME --license L

`sdk`: a maker's SDK whose generated code lists its model ids as string literals (OpenAI's
`ChatModel`, Anthropic's `Model`; Z.ai's Java SDK's `Constants`: `--files '*Constants.java'`). For
each id, the first commit on the main line (first-parent history) whose diff adds a line quoting it
in a `.py` file (or a file named like `--files`) under PACKAGE_DIR: the day the maker's own SDK
listed it. Ids the first commit already holds are listed since before the SDK's history
began: their day is unknown (`undatable`, with the day of that first commit: they were listed by then);
so are the ids of a commit adding more than BULK at once (a typed list of the models on sale).

`table`: a maker's SDK whose README lists its models in a Markdown table, one model a row, its id
in backquotes in the first cell (Voyage AI's `| \`voyage-01\` | 4096 | 1024 | ...`). For each id, the
first main-line commit adding its row to PATH: the day the maker's own SDK listed it as offered (a
row saying "coming soon" lists nothing). Ids of the file's first commit are `undatable`, as are
those of a commit adding more than BULK rows.

`bedrock`: mirai73/bedrock-models, a record of AWS's ListFoundationModels kept by a scheduled pull
("chore: update Bedrock model IDs ..." commits). An id's first pull is the first day Bedrock's
model list is seen to show it, the pull before it the last day it was not (`after`). Ids a commit
other than a scheduled pull adds (the first record, a change of what the generator covers) are
`undatable`.

`genai`: pydantic/genai-prices, a secondary price source (its package is one of the build's
sources): the first commit adding a model entry to a provider's file is the day it first listed
the model there (launch basis `source_listed`); a file's first commit, and a commit adding more
than BULK entries to one file (an import of a catalogue), give no day.

`catalogue`: copies of a channel's own model list (OpenRouter's `/api/v1/models`, Together's
`/models/info`, ...) that a repository keeps at PATH (several, comma-separated, where the copy
moved; a source file embedding the answer as an array literal is read for that array). Every
version of the file in the history is read (catalogues.py parses it); each model id keeps the
channel's own day of it (`created`, the day the channel says it added the model; the earliest
where copies differ) and the first copy listing it (commit and day). Set aside, with the reason
(`set_aside`): an id a copy lists with no day (catalogues.together_day), an id created before an
earlier copy that does not list it, an id whose copies give different days, the ids of a day
the channel created more than BULK of.

Only facts leave the clone: id, day, commit. Run it on a clone of the repository's history (e.g.
`git clone --bare`); the output names the repository, its head commit and the day read.
Standard library only.
"""
import argparse
import datetime as dt
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

from pipeline.sources import catalogues

QUOTED = re.compile(r'"([A-Za-z0-9][A-Za-z0-9._:\-]*)"')
# a Markdown table row whose first cell is a model id in backquotes: | `voyage-01` | 4096 | ...
ROW = re.compile(r"^\|\s*`([A-Za-z0-9][A-Za-z0-9._:\-]*)`\s*\|(.*)$")
NOT_YET = re.compile(r"coming soon", re.IGNORECASE)
PULL = "chore: update Bedrock model IDs"
BULK = 20


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def sdk_first(repo, package_dir, id_re, files="*.py"):
    """{id: {day, commit, path}} of the first main-line commit adding a line that quotes the id
    in a file named like `files` under package_dir, and the ids of the first such commit
    (undatable)."""
    return added_first(repo, f"{package_dir}/{files}", lambda line: QUOTED.findall(line), id_re)


def table_first(repo, path, id_re):
    """{id: {day, commit, path}} of the first main-line commit adding a row of a Markdown table
    in `path` whose first cell is the id in backquotes, and the ids of the file's first commit
    (undatable). A row announcing a model as "coming soon" does not list it as offered."""
    return added_first(repo, path, table_ids, id_re)


def table_ids(line):
    """[the id] a Markdown table row lists as offered (its first cell, in backquotes), else []."""
    m = ROW.match(line)
    return [m.group(1)] if m and not NOT_YET.search(m.group(2)) else []


def added_first(repo, pathspec, ids_in, id_re):
    """{id: {day, commit, path}} of the first main-line commit (first-parent history) adding a
    line of a file matching pathspec in which `ids_in(line)` finds the id, and the ids of the
    first commit touching those files (undatable: listed since before the history began)."""
    log = git(repo, "log", "--first-parent", "--reverse", "-p", "--unified=0", "--format=@@C %H %cI",
              "HEAD", "--", pathspec)
    first, undatable, commit, path, initial = {}, {}, None, None, None
    for line in log.splitlines():
        if line.startswith("@@C "):
            _, h, ts = line.split(" ", 2)
            commit = (h, ts[:10])
            initial = initial or h
        elif line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("+") and path:
            for s in ids_in(line[1:]):
                if not id_re.fullmatch(s) or s in first or s in undatable:
                    continue
                fact = {"day": commit[1], "commit": commit[0], "path": path}
                (undatable if commit[0] == initial else first)[s] = fact
    # a commit adding more than BULK ids imports a list of models already on sale (xAI's SDK gave
    # its 22 existing ids a typed list on 2025-11-26, grok-4-0709 among them): no sighting of new
    # models
    set_aside_bulk(first, undatable, lambda k, f: f["commit"])
    return first, undatable


def set_aside_bulk(first, undatable, group):
    """Move from `first` to `undatable` the ids whose group (`group(id, fact)`: a commit, or a
    commit and a file) first lists more than BULK ids: an import of a catalogue, no day."""
    size = Counter(group(k, f) for k, f in first.items())
    for k in [k for k, f in first.items() if size[group(k, f)] > BULK]:
        undatable[k] = first.pop(k)


def genai_first(repo):
    """{provider/model id: {day, commit}}: the first main-line commit adding a model entry
    (`  - id: <id>`) to prices/providers/<provider>.yml; the entries of each file's first commit
    are undatable (listed by then)."""
    log = git(repo, "log", "--first-parent", "--reverse", "-p", "--unified=0", "--format=@@C %H %cI",
              "HEAD", "--", "prices/providers/*.yml")
    first, undatable, commit, provider, seen_files = {}, {}, None, None, set()
    entry = re.compile(r"^\+  - id: ['\"]?([^'\"\s]+)")
    for line in log.splitlines():
        if line.startswith("@@C "):
            _, h, ts = line.split(" ", 2)
            commit = (h, ts[:10])
        elif line.startswith("--- "):
            new_file = line == "--- /dev/null"
        elif line.startswith("+++ "):
            m = re.fullmatch(r"\+\+\+ b/prices/providers/([^/]+)\.yml", line)
            provider = m.group(1) if m else None
            initial = provider is not None and (new_file or provider not in seen_files)
            if provider:
                seen_files.add(provider)
        elif provider and (m := entry.match(line)):
            k = f"{provider}/{m.group(1)}"
            if k in first or k in undatable:
                continue
            fact = {"day": commit[1], "commit": commit[0]}
            (undatable if initial else first)[k] = fact
    # a commit adding more than BULK entries to one file imports an existing catalogue (the first
    # import of 2025-06-22, "sync models from OpenRouter API" of 2026-06-15): no sighting of new
    # models
    set_aside_bulk(first, undatable, lambda k, f: (f["commit"], k.split("/", 1)[0]))
    return first, undatable


def bedrock_first(repo):
    """{id: {day, after, commit}}: the first scheduled pull listing the id and the pull before it."""
    log = git(repo, "log", "--first-parent", "--reverse", "--format=%H %cI %s", "HEAD", "--", "*bedrock_models.json")
    first, undatable, prev = {}, {}, None
    for line in filter(None, log.splitlines()):
        h, ts, subject = line.split(" ", 2)
        ids = set()
        for p in git(repo, "ls-tree", "-r", "--name-only", h).splitlines():
            if p.endswith("bedrock_models.json"):
                try:
                    ids |= set(json.loads(git(repo, "show", f"{h}:{p}")))
                except (json.JSONDecodeError, subprocess.CalledProcessError):
                    pass    # a path that was a link or not yet JSON in that commit
        if not ids:
            continue
        pull = subject.startswith(PULL)
        for i in sorted(ids - set(first) - set(undatable)):
            if pull and prev:
                first[i] = {"day": ts[:10], "after": prev, "commit": h}
            else:
                undatable[i] = {"day": ts[:10], "commit": h}
        if pull:
            prev = ts[:10]
    return first, undatable


def read_copy(text):
    """The JSON of a copy: the file itself, or the first array literal of a source file that
    embeds the answer (WebDB-App/app's front/togetherModel.js: `const models = [...]`)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start = text.find("[")
        if start < 0:
            raise
        return json.JSONDecoder().raw_decode(text[start:])[0]


def catalogue_first(repo, paths, channel):
    """({id: {day, commit, copy_day}}, [{commit, path, day, models}] of the copies read, {id:
    [days]} of the ids whose copies give different days, {id: why} of the ids set aside) of
    every version of the files at `paths` (the copy moved from one to the next). Set aside: an
    id listed with no day its copy gives (Together: catalogues.together_day), an id whose day is
    before an earlier copy that does not list it (not listed then: not its first listing), an id
    its copies give different days (two records of one id), and the ids of a day the channel
    created more than BULK of (an import of models already on sale)."""
    first, copies, days, listed_in = {}, [], {}, []
    for path in paths:
        log = git(repo, "log", "--all", "--reverse", "--format=%H %cI", "--", path)
        for line in filter(None, log.splitlines()):
            h, ts = line.split(" ", 1)
            try:
                doc = read_copy(git(repo, "show", f"{h}:{path}"))
                created = catalogues.created_days(doc, channel)
            except subprocess.CalledProcessError:
                continue        # the commit deleted the file
            except (json.JSONDecodeError, ValueError):
                continue        # not a copy of the catalogue in that commit
            listed = catalogues.listed_ids(doc, channel)
            copies.append({"commit": h, "path": path, "day": ts[:10], "models": len(listed)})
            # a commit that keeps the list as it was (WebDB-App/app reformatted and renamed its
            # copy on 2024-02-01) shows the list of the commit that fetched it
            if not (listed_in and listed_in[-1][1] == listed):
                listed_in.append((ts[:10], listed))
            for i, d in created.items():
                days.setdefault(i, set()).add(d)
                if i not in first or d < first[i]["day"]:
                    first[i] = {"day": d, "commit": first.get(i, {}).get("commit", h),
                                "copy_day": first.get(i, {}).get("copy_day", ts[:10])}
    aside = {i: "listed with no day: its record's created_at and insertion time differ"
             for _d, listed in listed_in for i in listed if i not in first}
    for i, f in first.items():
        missing = next((d for d, listed in listed_in if f["day"] < d < f["copy_day"] and i not in listed), None)
        if missing:
            aside[i] = f"created {f['day']}, but the copy of {missing} does not list it"
    for i, d in days.items():
        if len(d) > 1:
            aside[i] = f"its copies give different days: {', '.join(sorted(d))}"
    size = Counter(f["day"] for f in first.values())
    for i, f in first.items():
        if size[f["day"]] > BULK and i not in aside:
            aside[i] = f"one of {size[f['day']]} models created on {f['day']}: an import, no day"
    for i in aside:
        first.pop(i, None)
    return first, copies, {i: sorted(d) for i, d in days.items() if len(d) > 1}, dict(sorted(aside.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="kind", required=True)
    s = sub.add_parser("sdk")
    s.add_argument("clone")
    s.add_argument("package_dir")
    s.add_argument("id_regex")
    s.add_argument("out")
    s.add_argument("--files", default="*.py", help="the files under PACKAGE_DIR that list the ids (a git pathspec)")
    t = sub.add_parser("table")
    t.add_argument("clone")
    t.add_argument("path")
    t.add_argument("id_regex")
    t.add_argument("out")
    b = sub.add_parser("bedrock")
    b.add_argument("clone")
    b.add_argument("out")
    g = sub.add_parser("genai")
    g.add_argument("clone")
    g.add_argument("out")
    c = sub.add_parser("catalogue")
    c.add_argument("clone")
    c.add_argument("path", help="the copy's path, or several (comma-separated) where it moved")
    c.add_argument("channel")
    c.add_argument("out")
    for p in (s, t, b, g, c):
        p.add_argument("--repository", required=True, help="owner/name on GitHub")
        p.add_argument("--license", required=True)
        p.add_argument("--about", required=True, help="what the listing is, one sentence")
    args = ap.parse_args()
    head = git(args.clone, "log", "-1", "--format=%H %cI").split()
    if args.kind == "catalogue":
        first, copies, differ, aside = catalogue_first(args.clone, args.path.split(","), args.channel)
        out = {
            "about": args.about,
            "channel": args.channel,
            "source": {"repository": f"github.com/{args.repository}", "paths": args.path, "commit": head[0],
                       "commit_day": head[1][:10], "read": dt.date.today().isoformat(), "license": args.license,
                       "extracted_by": "tools/dataset/maintenance/extract_listings.py catalogue"},
            "copies": copies,
            "differ": differ,
            "set_aside": aside,
            "first": dict(sorted(first.items())),
        }
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
        print(f"{args.out}: {len(first)} ids from {len(copies)} copies, {len(differ)} with differing days, "
              f"{len(aside)} set aside")
        return
    if args.kind == "sdk":
        first, undatable = sdk_first(args.clone, args.package_dir, re.compile(args.id_regex), args.files)
        paths = f"{args.package_dir}/**/{args.files}"
    elif args.kind == "table":
        first, undatable = table_first(args.clone, args.path, re.compile(args.id_regex))
        paths = args.path
    elif args.kind == "bedrock":
        first, undatable = bedrock_first(args.clone)
        paths = "**/bedrock_models.json"
    else:
        first, undatable = genai_first(args.clone)
        paths = "prices/providers/*.yml"
    out = {
        "about": args.about,
        "source": {"repository": f"github.com/{args.repository}", "paths": paths, "commit": head[0],
                   "commit_day": head[1][:10], "read": dt.date.today().isoformat(), "license": args.license,
                   "extracted_by": "tools/dataset/maintenance/extract_listings.py " + args.kind},
        "first": dict(sorted(first.items())),
        "undatable": {i: f["day"] for i, f in sorted(undatable.items())},
    }
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=False) + "\n")
    print(f"{args.out}: {len(first)} ids dated, {len(undatable)} undatable")


if __name__ == "__main__":
    main()
