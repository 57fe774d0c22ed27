#!/usr/bin/env python3
"""import-circles.py: finds import circles between the files of the Rust
crates (and the Python modules of tools/dataset and scripts), and exits 1 when there is one.

    python3 scripts/import-circles.py [--edges]

A file imports another when its code names an item defined there: a `use`
(its braces expanded), or a path in the code that starts with `crate::`,
`super::`, `self::` or the name of a module the file declares. A path is
followed through `pub use` re-exports to the file that defines the item, so a
folder's `mod.rs` that re-exports its children's items is a passage, not a
node every user of them depends on; `mod x;` itself is no import. Comments and
string literals are left out. Python: `import m` and `from m import ...`, absolute
from the folder the scripts run from or relative inside a package (python_edges). The circles are the strongly connected components
of more than one file (Tarjan); `--edges` prints every edge as well.
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# The root file of every Rust crate checked, and the folders of Python modules.
RUST_CRATES = [
    "server/src/lib.rs",
    "server/src/main.rs",
    "estimator/src/lib.rs",
    "web-demo/src/lib.rs",
    "tests/api/main.rs",
]
PYTHON_DIRS = ["tools/dataset", "scripts"]

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_rust(text):
    """The text with comments, string and char literals blanked (lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif (m := re.match(r'b?r(#*)"', text[i:])) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", text[i:])):
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_tree(tree):
    """`a::{b, c::{d, e as f}, self}` -> [([a, b], None), ([a, c, d], None), ([a, c, e], "f"), ([a], None)]."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", tree))

    def parse(s, prefix):
        paths, depth, start, parts = [], 0, 0, []
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for part in filter(None, parts):
            brace = part.find("{")
            if brace >= 0:
                head = [x for x in part[:brace].split("::") if x]
                paths += parse(part[brace + 1:part.rindex("}")], prefix + head)
                continue
            part, _, alias = part.partition("@")
            segs = [x for x in part.split("::") if x]
            if segs == ["self"]:
                paths.append((prefix, alias or None))
            else:
                paths.append((prefix + segs, alias or None))
        return paths

    return parse(tree, [])


class Crate:
    """The module tree of one crate: module path (tuple) -> file, and what each file says."""

    def __init__(self, root_file):
        self.root_file = root_file
        self.modules = {}      # module path -> file
        self.children = {}     # module path -> {child name}
        self.reexports = {}    # module path -> {name: absolute path}
        self.globs = {}        # module path -> [absolute module path]
        self.uses = []         # (file, module path, absolute path) of private uses and code paths
        self._load((), root_file)

    def _load(self, mod, path):
        self.modules[mod] = path
        self.children.setdefault(mod, set())
        text = strip_rust(open(os.path.join(ROOT, path), encoding="utf-8").read())
        folder = os.path.dirname(path)
        base = os.path.basename(path)
        own_dir = folder if base in ("lib.rs", "main.rs", "mod.rs") else os.path.join(folder, base[:-3])
        self._scan(mod, path, text, own_dir)

    def _scan(self, mod, path, text, own_dir):
        """Walks `text` (one file), tracking inline `mod x { ... }` blocks."""
        # Inline modules: find `mod name {` and its matching brace.
        spans = []  # (start, end, name)
        for m in re.finditer(rf"\bmod\s+({IDENT})\s*\{{", text):
            depth, k = 0, m.end() - 1
            while k < len(text):
                if text[k] == "{":
                    depth += 1
                elif text[k] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            spans.append((m.start(), k, m.group(1)))

        def mod_at(pos):
            inner = list(mod)
            for start, end, name in spans:
                if start < pos < end:
                    inner.append(name)
            return tuple(inner)

        for start, _end, name in spans:
            inner = mod_at(start + 1)
            self.modules.setdefault(inner, path)
            self.children.setdefault(mod_at(start), set()).add(name)
            self.children.setdefault(inner, set())
        for m in re.finditer(rf"\b(?:pub(?:\([^)]*\))?\s+)?mod\s+({IDENT})\s*;", text):
            name = m.group(1)
            parent = mod_at(m.start())
            self.children.setdefault(parent, set()).add(name)
            for candidate in (os.path.join(own_dir, name + ".rs"), os.path.join(own_dir, name, "mod.rs")):
                if os.path.exists(os.path.join(ROOT, candidate)):
                    self._load(parent + (name,), candidate)
                    break
            else:
                raise SystemExit(f"{path}: module {name} has no file")
        use_spans = []
        for m in re.finditer(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
            use_spans.append((m.start(), m.end()))
            here = mod_at(m.start())
            public = m.group(1) is not None and "(" not in m.group(1)
            for segs, alias in split_tree(m.group(2)):
                absolute = self.absolute(here, segs)
                if absolute is None:
                    continue
                if segs and segs[-1] == "*":
                    if public:
                        self.globs.setdefault(here, []).append(absolute[:-1])
                    continue
                if m.group(1) is not None:
                    self.reexports.setdefault(here, {})[alias or absolute[-1]] = absolute
                if not public:
                    self.uses.append((path, here, absolute))
        # Paths in the code: crate::, super::, self::, or a declared child module.
        for m in re.finditer(rf"(?<![A-Za-z0-9_:])((?:{IDENT}::)+{IDENT})", text):
            if any(s <= m.start() < e for s, e in use_spans):
                continue
            here = mod_at(m.start())
            segs = m.group(1).split("::")
            if segs[0] not in ("crate", "super", "self") and segs[0] not in self.children.get(here, ()):
                continue
            absolute = self.absolute(here, segs)
            if absolute is not None:
                self.uses.append((path, here, absolute))

    def absolute(self, here, segs):
        """The path from the crate root, or None for another crate's path."""
        if not segs:
            return None
        if segs[0] == "crate":
            return tuple(segs[1:])
        if segs[0] in ("self", "super"):
            mod = list(here)
            k = 0
            if segs[0] == "self":
                k = 1
            while k < len(segs) and segs[k] == "super":
                mod.pop()
                k += 1
            return tuple(mod) + tuple(segs[k:])
        if segs[0] in self.children.get(here, ()):
            return tuple(here) + tuple(segs)
        return None

    def defining_file(self, absolute, seen=None):
        """The file that defines what `absolute` names (through re-exports)."""
        seen = seen or set()
        if absolute in seen:
            return None
        seen.add(absolute)
        mod = ()
        for k, seg in enumerate(absolute):
            if mod + (seg,) in self.modules:
                mod = mod + (seg,)
                continue
            target = self.reexports.get(mod, {}).get(seg)
            if target is not None:
                return self.defining_file(target + tuple(absolute[k + 1:]), seen)
            for glob in self.globs.get(mod, []):
                found = self.defining_file(glob + tuple(absolute[k:]), seen)
                if found is not None and found != self.modules.get(glob):
                    return found
            return self.modules[mod]
        return self.modules[mod]

    def edges(self):
        out = set()
        for path, _here, absolute in self.uses:
            target = self.defining_file(absolute)
            if target is not None and target != path:
                out.add((path, target))
        return out


def python_target(folder, dotted):
    """The file a dotted module name names inside `folder`: the module, else the package's
    __init__.py, else None (a module from elsewhere: the standard library)."""
    path = os.path.join(folder, *dotted.split(".")) if dotted else folder
    if dotted and os.path.isfile(path + ".py"):
        return path + ".py"
    init = os.path.join(path, "__init__.py")
    return init if os.path.isfile(init) else None


def python_edges(root):
    """The imports between the modules under `root`, the folder its scripts run from (Python puts
    a script's folder first on its import path): absolute names are read from `root`, relative
    ones from the importing file's package; a name imported from a package is its submodule when
    there is one, else the package's __init__.py."""
    out = set()
    base = os.path.join(ROOT, root)
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(folder, d, "__init__.py")))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(folder, f)
            text = open(path, encoding="utf-8").read()
            found = re.finditer(r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)"
                                r"|import[ \t]+([\w., ]+))", text, re.M)
            for m in found:
                if m.group(4):
                    targets = [python_target(base, x.split()[0]) for x in m.group(4).split(",")]
                else:
                    start = folder
                    for _ in range(len(m.group(1)) - 1):
                        start = os.path.dirname(start)
                    start = start if m.group(1) else base
                    module = python_target(start, m.group(2))
                    targets = [module]
                    if module and module.endswith("__init__.py"):
                        package = os.path.dirname(module)
                        names = [x.split()[0] for x in m.group(3).strip("()").split(",") if x.strip()]
                        targets = [python_target(package, n) or module for n in names]
                for target in targets:
                    if target and target != path:
                        out.add((os.path.relpath(path, ROOT), os.path.relpath(target, ROOT)))
    return out


def circles(edges):
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found, graph


def main():
    edges = set()
    for root in RUST_CRATES:
        if os.path.exists(os.path.join(ROOT, root)):
            edges |= Crate(root).edges()
    for folder in PYTHON_DIRS:
        edges |= python_edges(folder)
    found, graph = circles(edges)
    if "--edges" in sys.argv:
        for a, b in sorted(edges):
            print(f"{a} -> {b}")
    files = len(graph)
    if not found:
        print(f"import-circles: no circle among {files} files ({len(edges)} imports)")
        return 0
    for comp in found:
        inside = sorted((a, b) for a, b in edges if a in comp and b in comp)
        print("circle: " + ", ".join(comp))
        for a, b in inside:
            print(f"    {a} -> {b}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
