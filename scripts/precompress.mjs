// Writes NAME.br (brotli, quality 11) and NAME.gz (gzip -9) beside every text asset and the
// wasm under the given folder, so the server sends them without compressing on each request.
// Usage: node scripts/precompress.mjs DIR
import { readdirSync, readFileSync, writeFileSync, statSync } from "node:fs";
import { join, extname } from "node:path";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";

const COMPRESSIBLE = new Set([".wasm", ".js", ".mjs", ".css", ".html", ".webmanifest", ".svg", ".json"]);

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      walk(path);
    } else if (COMPRESSIBLE.has(extname(name))) {
      const data = readFileSync(path);
      writeFileSync(path + ".br", brotliCompressSync(data, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
        },
      }));
      writeFileSync(path + ".gz", gzipSync(data, { level: 9 }));
    }
  }
}

walk(process.argv[2] ?? "dist");
