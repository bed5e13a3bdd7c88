#!/usr/bin/env node
// The codebase's shape, checked (run by scripts/test):
//   1. no source file (.rs .mjs .js .ts) over 500 lines, outside generated or vendored output
//      (node_modules, target, crates/wasm/pkg, dist);
//   2. no `use` circle between modules of a Rust crate: `crate::`, `super::` and `self::` paths
//      resolved to the module files they name; a module and its own descendants or ancestors do
//      not count as a circle (a parent declares its children; a child may use its parent's items);
//   3. no import circle between the JS modules of packages/ and crates/wasm/js.
// Prints every finding and exits 1 on any. `node scripts/check-shape.mjs`.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';

const REPO = resolve(dirname(new URL(import.meta.url).pathname), '..');
const MAX_LINES = 500;
const SKIP_DIRS = new Set(['node_modules', 'target', 'pkg', 'dist', '.git', 'fixtures']);
const ROOTS = ['crates', 'web', 'packages', 'tests', 'scripts', 'examples', 'fuzz', 'bench'];

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const rel = (p) => relative(REPO, p).split(sep).join('/');
const problems = [];

// 1. File sizes.
const files = ROOTS.flatMap((r) => walk(join(REPO, r)));
for (const f of files.filter((f) => /\.(rs|mjs|js|ts)$/.test(f) && !f.endsWith('.d.ts'))) {
  const lines = readFileSync(f, 'utf8').split('\n').length - 1;
  if (lines > MAX_LINES) {
    problems.push(`${rel(f)}: ${lines} lines (at most ${MAX_LINES}; split it along a seam)`);
  }
}

// Tarjan's strongly connected components of `graph` (Map node -> Set node).
function cycles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

function report(kind, graph) {
  for (const scc of cycles(graph)) {
    const name = scc.map(rel).join(' <-> ');
    problems.push(`${kind} circle: ${name}`);
  }
}

// 2. Rust: module path of each file of a crate's src/.
function rustCrate(src) {
  const mods = new Map(); // "a::b" -> file
  for (const f of walk(src).filter((f) => f.endsWith('.rs'))) {
    const parts = relative(src, f).split(sep);
    const last = parts.pop().replace(/\.rs$/, '');
    if (!['mod', 'lib', 'main'].includes(last) || parts.length > 0) {
      if (last !== 'mod') parts.push(last);
    }
    if (parts.length === 0 && last !== 'lib' && last !== 'main') continue; // a second binary root
    mods.set(parts.join('::'), f);
  }
  const fileMod = new Map([...mods].map(([m, f]) => [f, m]));
  // The module file a path names: its longest prefix that is a module.
  const resolveMod = (segs) => {
    for (let n = segs.length; n >= 0; n--) {
      const m = segs.slice(0, n).join('::');
      if (mods.has(m)) return m;
    }
    return '';
  };
  const graph = new Map();
  for (const [f, m] of fileMod) {
    const here = m ? m.split('::') : [];
    // A mod.rs/lib.rs is its module; another file's `super` is its parent.
    const text = readFileSync(f, 'utf8').replace(/\/\/.*$/gm, '');
    const edges = new Set();
    const paths = [];
    for (const u of text.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expand(u[1].replace(/\s+/g, '')));
    for (const p of text.matchAll(/\b((?:crate|super|self)(?:::\w+)+)/g)) paths.push(p[1]);
    for (const p of paths) {
      let segs = p.split('::').filter((s) => s && s !== '*');
      let base;
      if (segs[0] === 'crate') base = [];
      else if (segs[0] === 'self') base = [...here];
      else if (segs[0] === 'super') {
        base = [...here];
        while (segs[0] === 'super') {
          base.pop();
          segs = segs.slice(1);
        }
        segs = ['_', ...segs];
      } else continue;
      const target = resolveMod([...base, ...segs.slice(1)]);
      const a = m;
      const b = target;
      const related = a === b || (b === '' || a.startsWith(`${b}::`)) || (a === '' || b.startsWith(`${a}::`));
      if (!related) edges.add(mods.get(b));
    }
    graph.set(f, edges);
  }
  report('Rust module', graph);
}

// `a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"].
function expand(path) {
  const open = path.indexOf('{');
  if (open < 0) return [path.replace(/\bas\b.*$/, '')];
  const prefix = path.slice(0, open);
  const inner = path.slice(open + 1, path.lastIndexOf('}'));
  const items = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '{') depth++;
    else if (inner[i] === '}') depth--;
    else if (inner[i] === ',' && depth === 0) {
      items.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  items.push(inner.slice(start));
  return items.filter(Boolean).flatMap((it) => expand(prefix + it));
}

for (const dir of ['crates', 'web', 'bench', 'fuzz']) {
  for (const cargo of walk(join(REPO, dir)).filter((f) => f.endsWith(`${sep}Cargo.toml`))) {
    const src = join(dirname(cargo), 'src');
    if (existsSync(src)) rustCrate(src);
  }
}

// 3. JS: relative imports between the modules of each package.
const jsGraph = new Map();
const jsFiles = [...walk(join(REPO, 'packages')), ...walk(join(REPO, 'crates/wasm/js'))].filter((f) =>
  /\.(mjs|js|ts)$/.test(f) && !f.endsWith('.d.ts'),
);
for (const f of jsFiles) {
  const text = readFileSync(f, 'utf8');
  const edges = new Set();
  const specs = [
    ...text.matchAll(/\b(?:import|export)\s[^;]*?\bfrom\s*['"](\.[^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(?\s*['"](\.[^'"]+)['"]/g),
    ...text.matchAll(/\brequire\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ];
  for (const s of specs) {
    const base = resolve(dirname(f), s[1]);
    const hit = [base, `${base}.js`, `${base}.mjs`, `${base}.ts`, join(base, 'index.js')].find(
      (c) => existsSync(c) && statSync(c).isFile(),
    );
    if (hit) edges.add(hit);
  }
  jsGraph.set(f, edges);
}
report('JS import', jsGraph);

for (const p of problems) console.log(p);
console.log(problems.length === 0 ? 'shape: ok' : `shape: ${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);
