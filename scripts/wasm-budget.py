"""Checks the brotli wasm a phone downloads against scripts/wasm-brotli-budget-kb: each module
counted with the chunks it cannot open without (src/lazy.rs), as the loader fetches them,
so what a module reaches cannot hide in a chunk it shares. Prints every figure.

Usage: python3 scripts/wasm-budget.py [DIST]"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def needs(pkg):
    """Each split module's chunks, read from the loader: `/* account, lobby */` names the
    modules that fetch the chunk whose fetch follows it."""
    loader = next(pkg.glob("__wasm_split-*.js")).read_text()
    chunks = {}
    for users, chunk in re.findall(r"/\* ([a-z_, ]+) \*/\s*const __\w+ = makeLoad\(\(\) => \{\s*"
                                   r"const src = fetch\(new URL\(\"\./(chunk_\d+-[0-9a-f]+\.wasm)\"",
                                   loader):
        for user in users.split(", "):
            chunks.setdefault("split_" + user, []).append(chunk)
    if not chunks:
        sys.exit("wasm-budget: no chunk found in the loader; has its format changed?")
    return chunks


def main():
    pkg = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "dist") / "pkg"
    chunks = needs(pkg)
    over = []
    for line in (ROOT / "scripts" / "wasm-brotli-budget-kb").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        module, budget_kb = line.split()
        found = list(pkg.glob(f"{module}-*.wasm"))
        if len(found) != 1:
            sys.exit(f"wasm-budget: expected one {module}-*.wasm in {pkg}, found {len(found)}")
        wasm = found[0]
        parts = [wasm.name] + chunks.get(module, [])
        size = sum((pkg / (part + ".br")).stat().st_size for part in parts)
        shown = f" with {len(parts) - 1} chunks" if len(parts) > 1 else ""
        print(f"brotli {module}{shown}: {size / 1024:.1f} KB of {budget_kb} KB")
        if size > int(budget_kb) * 1024:
            over.append(module)
    if over:
        sys.exit(f"grew past the budget: {', '.join(over)}")


if __name__ == "__main__":
    main()
