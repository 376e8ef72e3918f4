// Packs the split modules' shared chunks into fewer files, and rewrites the loader to fetch
// those. The splitter makes one chunk for each set of modules that share code, so the account
// alone needed 18 chunks beside its own file, and 20 of the 35 were under 1 KB: on slow 4G each file
// waits for its turn on one of the browser's six HTTP/1.1 connections, and the chunks cost
// the account's first opening more than their bytes did (docs/benchmarks.md). Chunks are
// joined while a file saved is worth more than the bytes some module then fetches without
// needing them. A chunk still goes into exactly one file, so each is instantiated once, as the
// splitter's loader does; one whose file came with another module's only fills its slots of
// the function table (null until then) and writes its data early, which nothing reads before
// its own module is loaded.
//
// Usage: node scripts/pack-chunks.mjs PKG WASM_OPT
// PKG holds the optimised chunk_N.wasm files and __wasm_split.js; WASM_OPT is binaryen's
// wasm-opt, with wasm-merge beside it.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

// What a file costs a phone beyond its bytes on slow 4G (1.6 Mbps, 150 ms): its share of a
// round trip on one of six connections, 150 ms × 200 KB/s ÷ 6.
const FILE_BYTES = 5000;
// The splitter's modules import what they share with the app from here; the merged file's
// chunks import it from the provider instead, which wasm-merge then resolves.
const SHARED = "__wasm_split";
const PROVIDER = "__wasm_split_provider";

function fail(why) {
  console.error(`pack-chunks: ${why}`);
  process.exit(1);
}

function run(tool, args) {
  try {
    return execFileSync(tool, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    fail(`${tool} ${args.join(" ")} failed:\n${e.stderr || e.message}`);
  }
}

function brotli(data) {
  return brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
}

const [pkg, wasmOpt] = process.argv.slice(2);
if (!pkg || !wasmOpt) fail("usage: node scripts/pack-chunks.mjs PKG WASM_OPT");
const wasmMerge = join(dirname(wasmOpt), "wasm-merge");
const loaderPath = join(pkg, "__wasm_split.js");
let loader = readFileSync(loaderPath, "utf8");

// The loader as wasm_split_cli_support writes it: one block per chunk, then one per module
// naming the chunks it waits for.
const chunkBlock = /\/\* [\w, ]+ \*\/\nconst (__chunk_\d+) = makeLoad\(\(\) => \{\n    const src = fetch\(new URL\("\.\/(chunk_\d+\.wasm)", import\.meta\.url\)\);\n    src\.catch\(\(\) => \{\}\);\n    return async \(imports\) => \(WebAssembly\.instantiateStreaming\(src, imports\)\);\n\}\n, \[\]\);\n/g;
const moduleDeps = /(export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{\n    const src = fetch\(new URL\("\.\/split_\w+\.wasm", import\.meta\.url\)\);\n[^]*?\n\}\n, \[)([^\]]*)(\]\)\);)/g;
// A loader's chunks and modules, each module with the chunks it waits for; fails unless every
// load it makes is one of them.
function read(text) {
  const chunks = [...text.matchAll(chunkBlock)].map((m) => ({ name: m[1], file: m[2], block: m[0] }));
  const modules = [...text.matchAll(moduleDeps)].map((m) => ({
    name: m[2],
    deps: m[3].split(",").map((d) => d.trim()).filter(Boolean),
  }));
  const loads = (text.match(/makeLoad\(/g) ?? []).length;
  if (modules.length === 0 || loads !== 1 + chunks.length + modules.length) {
    fail(`the loader's format has changed: ${loads - 1} loads, ${chunks.length} chunks and ${modules.length} modules recognised`);
  }
  return { chunks, modules };
}
const { chunks, modules } = read(loader);
if (chunks.length === 0) {
  console.log("no shared chunks to pack");
  process.exit(0);
}
const byName = new Map(chunks.map((c, i) => [c.name, i]));
for (const m of modules) {
  for (const d of m.deps) if (!byName.has(d)) fail(`${m.name} waits for ${d}, which the loader does not define`);
}
for (const c of chunks) {
  c.users = modules.filter((m) => m.deps.includes(c.name)).map((m) => m.name);
  if (c.users.length === 0) fail(`no module waits for ${c.name}`);
  c.bytes = readFileSync(join(pkg, c.file));
  c.size = brotli(c.bytes).length;
}

// Greedy: join the two files whose joining lowers most what all modules fetch, counting each
// file as FILE_BYTES and a joined file as its chunks' sizes (brotli does a little better on
// them together), until no joining lowers it. Ties go to the earliest pair: the same split
// packs the same way. Approximations, accepted as the bench judges the result: a file costs
// its share of a round trip even for a module that fetches fewer than six, and every module
// weighs the same (how to play twice: a device fetches one language's).
const files = chunks.map((c, i) => ({ chunks: [i], size: c.size, users: new Set(c.users) }));
for (;;) {
  let best = null;
  for (let i = 0; i < files.length; i++) {
    for (let j = i + 1; j < files.length; j++) {
      let change = 0;
      for (const m of modules) {
        const a = files[i].users.has(m.name), b = files[j].users.has(m.name);
        if (a && b) change -= FILE_BYTES;
        else if (a) change += files[j].size;
        else if (b) change += files[i].size;
      }
      if (change < 0 && (best === null || change < best.change)) best = { i, j, change };
    }
  }
  if (best === null) break;
  const [a, b] = [files[best.i], files[best.j]];
  files.splice(best.j, 1);
  files[best.i] = { chunks: [...a.chunks, ...b.chunks].sort((x, y) => x - y), size: a.size + b.size, users: new Set([...a.users, ...b.users]) };
}
files.sort((x, y) => x.chunks[0] - y.chunks[0]);

// --- The wasm binary format, as far as these modules use it.
function leb(bytes, at) {
  let value = 0, shift = 0, byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}
function uleb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
}
function sections(bytes, file) {
  if (bytes.readUInt32LE(0) !== 0x6d736100 || bytes.readUInt32LE(4) !== 1) fail(`${file} is not a wasm module`);
  const out = [];
  for (let at = 8; at < bytes.length;) {
    const id = bytes[at];
    const [size, start] = leb(bytes, at + 1);
    if (start + size > bytes.length) fail(`${file} ends inside its section ${id}`);
    out.push({ id, body: bytes.subarray(start, start + size) });
    at = start + size;
  }
  return out;
}
function module(list) {
  const parts = [Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])];
  for (const s of list) parts.push(Buffer.from([s.id]), uleb(s.body.length), s.body);
  return Buffer.concat(parts);
}
function name(text) {
  const bytes = Buffer.from(text, "utf8");
  return Buffer.concat([uleb(bytes.length), bytes]);
}
// Import entries: module, field, kind (1 table, 2 memory, 3 global) and the raw descriptor.
// Anything else these modules never held fails, rather than being misread.
const REFERENCES = [0x70, 0x6f];
const VALUES = [0x7f, 0x7e, 0x7d, 0x7c, 0x7b, ...REFERENCES];
function imports(body, file) {
  const list = [];
  let [count, at] = leb(body, 0);
  const text = () => {
    const [length, from] = leb(body, at);
    at = from + length;
    return body.subarray(from, at).toString("utf8");
  };
  let entry;
  const unknown = (what) => fail(`${file} imports ${entry.module}.${entry.field} with ${what}, which no chunk did`);
  const limits = () => {
    // Bits: a maximum, shared, 64-bit; a custom page size (bit 3) would add a field.
    const flags = body[at++];
    if (flags > 7) unknown(`limits flags ${flags}`);
    [, at] = leb(body, at);
    if (flags & 1) [, at] = leb(body, at);
  };
  while (count--) {
    entry = { module: text(), field: text(), kind: body[at++] };
    const from = at;
    if (entry.kind === 1) {
      if (!REFERENCES.includes(body[at++])) unknown(`table type ${body[at - 1]}`);
      limits();
    } else if (entry.kind === 2) {
      limits();
    } else if (entry.kind === 3) {
      if (!VALUES.includes(body[at++])) unknown(`global type ${body[at - 1]}`);
      if (body[at++] > 1) unknown(`global mutability ${body[at - 1]}`);
    } else {
      unknown(`kind ${entry.kind} (0 a function, 4 a tag)`);
    }
    if (at > body.length) fail(`${file}'s imports end early`);
    entry.descriptor = body.subarray(from, at);
    list.push(entry);
  }
  return list;
}
function importSection(entries) {
  return Buffer.concat([uleb(entries.length), ...entries.map((e) =>
    Buffer.concat([name(e.module), name(e.field), Buffer.from([e.kind]), e.descriptor]))]);
}

// Merges the chunks into one file: each chunk imports the shared memory, table and stack
// pointer from a provider module that imports them once from the app, and wasm-merge joins
// them; the provider's exports are then dropped, as chunks export nothing.
function merge(list, out, work) {
  const provided = new Map();
  const inputs = [];
  for (const c of list) {
    const parts = sections(c.bytes, c.file);
    for (const s of parts) {
      if (s.id === 7 || s.id === 8) fail(`${c.file} has exports or a start function, which no chunk had`);
    }
    const renamed = parts.map((s) => {
      if (s.id !== 2) return s;
      const entries = imports(s.body, c.file);
      for (const e of entries) {
        if (e.module !== SHARED) fail(`${c.file} imports from ${e.module}, not ${SHARED}`);
        const key = `${e.kind}:${e.field}`;
        const seen = provided.get(key);
        if (seen && !seen.descriptor.equals(e.descriptor)) fail(`chunks import ${e.field} with different types`);
        provided.set(key, e);
      }
      return { id: 2, body: importSection(entries.map((e) => ({ ...e, module: PROVIDER }))) };
    });
    const path = join(work, c.file);
    writeFileSync(path, module(renamed));
    inputs.push(path, c.file.replace(/\.wasm$/, ""));
  }
  const shared = [...provided.values()];
  const exports = Buffer.concat([uleb(shared.length), ...shared.map((e) => {
    const index = shared.filter((o) => o.kind === e.kind).indexOf(e);
    // Export kinds number tables, memories and globals as imports do.
    return Buffer.concat([name(e.field), Buffer.from([e.kind]), uleb(index)]);
  })]);
  const provider = join(work, "provider.wasm");
  writeFileSync(provider, module([{ id: 2, body: importSection(shared) }, { id: 7, body: exports }]));
  const features = [...new Set(list.flatMap((c) => run(wasmOpt, ["--print-features", join(work, c.file), "-o", "/dev/null"])
    .split(/\s+/).filter(Boolean)))].sort();
  const merged = join(work, "merged.wasm");
  run(wasmMerge, [provider, PROVIDER, ...inputs, ...features, "-o", merged]);
  const joined = sections(readFileSync(merged), "the merged chunks").filter((s) => s.id !== 7);
  for (const s of joined) {
    if (s.id === 2 && imports(s.body, "the merged chunks").some((e) => e.module !== SHARED)) {
      fail("the merged chunks import from the provider still");
    }
  }
  writeFileSync(merged, module(joined));
  // wasm-merge writes no features section: the chunks' own features, never binaryen's all.
  run(wasmOpt, ["-O3", "--strip-debug", "--strip-producers", ...features, merged, "-o", out]);
}

const work = mkdtempSync(join(tmpdir(), "pack-chunks-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const staging = join(work, "packed");
mkdirSync(staging);
const blocks = [];
const fileOf = new Map();
files.forEach((f, k) => {
  const number = k + 1;
  const list = f.chunks.map((i) => chunks[i]);
  const file = `chunk_${number}.wasm`;
  if (list.length === 1) writeFileSync(join(staging, file), list[0].bytes);
  else merge(list, join(staging, file), work);
  for (const c of list) fileOf.set(c.name, `__chunk_${number}`);
  const users = modules.filter((m) => f.users.has(m.name)).map((m) => m.name).sort();
  blocks.push(list[0].block
    .replace(/^\/\* [\w, ]+ \*\//, `/* ${users.join(", ")} */`)
    .replace(/const __chunk_\d+ =/, `const __chunk_${number} =`)
    .replace(/"\.\/chunk_\d+\.wasm"/, `"./${file}"`));
  const joined = list.length > 1 ? ` (${list.map((c) => c.name.slice(2)).join(" + ")})` : "";
  console.log(`${file}${joined}: ${f.size} bytes brotli for ${users.join(", ")}`);
});

// The loader with the packed files: their blocks where the chunks' were, and each module
// waiting for the files that hold its chunks.
const first = loader.indexOf(chunks[0].block);
let rest = loader;
for (const c of chunks) rest = rest.replace(c.block, "");
loader = rest.slice(0, first) + blocks.join("") + rest.slice(first);
const depsOf = new Map(modules.map((m) => [m.name, m.deps]));
loader = loader.replace(moduleDeps, (_, head, split, _deps, tail) => {
  const wanted = [...new Set(depsOf.get(split).map((d) => fileOf.get(d)))];
  wanted.sort((x, y) => Number(x.slice(8)) - Number(y.slice(8)));
  return head + wanted.join(", ") + tail;
});
// The rewritten loader read back as the splitter's is: a block for each packed file, each
// fetching its own file, and every module waiting for files that hold every chunk it needed.
const readBack = read(loader);
if (readBack.chunks.length !== files.length || readBack.modules.length !== modules.length
  || readBack.chunks.some((c, k) => c.name !== `__chunk_${k + 1}` || c.file !== `chunk_${k + 1}.wasm`)) {
  fail("the rewritten loader does not read back as one block for each packed file");
}
for (const m of readBack.modules) {
  const brought = new Set(m.deps.flatMap((d) => {
    const file = files[Number(d.match(/^__chunk_(\d+)$/)?.[1]) - 1];
    if (!file) fail(`${m.name} waits for ${d}, which is no packed file`);
    return file.chunks;
  }));
  const needed = (depsOf.get(m.name) ?? []).map((d) => byName.get(d));
  if (!depsOf.has(m.name) || needed.some((i) => !brought.has(i))) fail(`the packed loader does not bring all of ${m.name}'s chunks`);
}
for (const name of readdirSync(pkg)) if (/^chunk_\d+\.wasm$/.test(name)) rmSync(join(pkg, name));
for (const name of readdirSync(staging)) copyFileSync(join(staging, name), join(pkg, name));
writeFileSync(loaderPath, loader);
console.log(`packed ${chunks.length} chunks into ${files.length} files`);
