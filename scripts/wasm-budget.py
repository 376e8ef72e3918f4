"""Checks the brotli wasm a phone downloads against scripts/wasm-brotli-budget-kb: each split
module counted with the chunks it cannot open without (src/lazy.rs), read from the loader's
own lists of what each module fetches, so nothing a module reaches can hide in a chunk it
shares. Every module must have a budget and every chunk must be some module's. Prints every
figure.

Usage: python3 scripts/wasm-budget.py [DIST]"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def fail(why):
    sys.exit(f"wasm-budget: {why}")


def needs(pkg):
    """Each split module's chunks as the loader fetches them: `__chunk_N = makeLoad(…
    "./chunk_N-….wasm" …)` names a chunk's file, and `__wasm_split_load_<module> =
    wrapAsyncCb(makeLoad(… "./split_<module>-….wasm" …, [__chunk_N, …]))` a module's list."""
    loaders = list(pkg.glob("__wasm_split-*.js"))
    if len(loaders) != 1:
        fail(f"expected one __wasm_split-*.js in {pkg}, found {len(loaders)}")
    loader = loaders[0].read_text()
    fetch = r'makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\./([\w.-]+\.wasm)"'
    files = dict(re.findall(r"const (__chunk_\d+) = " + fetch, loader))
    modules = re.findall(r"export const __wasm_split_load_\w+ = wrapAsyncCb\(" + fetch
                         + r".*?\n, \[([^\]]*)\]\)\);", loader, re.S)
    if not modules:
        fail("no split module found in the loader; has its format changed?")
    chunks = {}
    for wasm, deps in modules:
        names = [d.strip() for d in deps.split(",") if d.strip()]
        unknown = [d for d in names if d not in files]
        if unknown:
            fail(f"{wasm} needs {', '.join(unknown)}, which the loader does not fetch")
        chunks[wasm.rsplit("-", 1)[0]] = [files[d] for d in names]
    needed = {c for cs in chunks.values() for c in cs}
    stray = sorted(p.name for p in pkg.glob("chunk_*.wasm") if p.name not in needed)
    if stray:
        fail(f"no module counts {', '.join(stray)}: the loader's format may have changed")
    return chunks


def main():
    pkg = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "dist") / "pkg"
    chunks = needs(pkg)
    budgets = {}
    for line in (ROOT / "scripts" / "wasm-brotli-budget-kb").read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2 or not words[1].isdigit():
            fail(f"a budget line is `<module> <KB>`, found {line!r}")
        budgets[words[0]] = int(words[1])
    modules = {p.name.rsplit("-", 1)[0] for p in pkg.glob("*.wasm")
               if p.name.startswith("split_") or "_bg-" in p.name}
    unbudgeted = sorted(modules - budgets.keys())
    if unbudgeted:
        fail(f"no budget for {', '.join(unbudgeted)} in scripts/wasm-brotli-budget-kb")
    over = []
    for module, budget_kb in budgets.items():
        found = list(pkg.glob(f"{module}-*.wasm"))
        if len(found) != 1:
            fail(f"expected one {module}-*.wasm in {pkg}, found {len(found)}")
        parts = [found[0].name] + chunks.get(module, [])
        missing = [p + ".br" for p in parts if not (pkg / (p + ".br")).exists()]
        if missing:
            fail(f"no brotli copy of {', '.join(missing)}: was the build's precompress step run?")
        size = sum((pkg / (part + ".br")).stat().st_size for part in parts)
        shown = f" with {len(parts) - 1} chunks" if len(parts) > 1 else ""
        print(f"brotli {module}{shown}: {size / 1024:.1f} KB of {budget_kb} KB")
        if size > budget_kb * 1024:
            over.append(module)
    if over:
        fail(f"grew past the budget: {', '.join(over)}")


if __name__ == "__main__":
    main()
