// Every ```js and ```ts block of the README, docs/*.md, the book (book/src) and the READMEs of the
// npm packages is
// type-checked with `tsc --strict` (as an ES module in TypeScript: a JS snippet must also be
// valid TypeScript, since that is how a TypeScript user pastes it) and then run with Node, in a
// scratch folder at the repository root (so `shr-wasm` and the workspace packages resolve).
//
// A block may be preceded by an HTML comment (invisible on GitHub) that changes this:
//   <!-- snippet: typecheck-only — why -->   type-checked, not run (says why: a Redis server...)
//   <!-- snippet-prelude: TS declarations -->  put before the block, for names it assumes
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The book's own pages (book/src/**.md); its symbolic links are files listed here already. */
function bookPages(dir = 'book/src') {
  if (!existsSync(join(REPO, dir))) return [];
  return readdirSync(join(REPO, dir)).sort().flatMap((name) => {
    const rel = `${dir}/${name}`;
    const st = lstatSync(join(REPO, rel));
    if (st.isSymbolicLink()) return [];
    if (st.isDirectory()) return bookPages(rel);
    return name.endsWith('.md') ? [rel] : [];
  });
}

const FILES = [
  'README.md',
  ...readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...bookPages(),
  'crates/wasm/README.md',
  ...['shr-tools', 'shr-ai-sdk', 'shr-langchain', 'shr-otel'].map((p) => `packages/${p}/README.md`),
].filter((f) => existsSync(join(REPO, f)));

/** The js/ts blocks of a markdown text, with their line and the directives above them. */
export function snippets(file) {
  const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(js|ts|javascript|typescript)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const directives = [];
    for (let j = start - 1; j >= 0 && /^<!--\s*snippet/.test(lines[j]); j--) directives.unshift(lines[j]);
    const prelude = directives.map((d) => /^<!--\s*snippet-prelude:([\s\S]*?)-->/.exec(d)?.[1]?.trim()).filter(Boolean).join('\n');
    const typecheckOnly = directives.some((d) => /^<!--\s*snippet:\s*typecheck-only/.test(d));
    out.push({ file, line: start + 1, code: body.join('\n'), prelude, typecheckOnly });
  }
  return out;
}

const all = FILES.flatMap(snippets);

function run(cmd, args, opts) {
  return new Promise((resolve) => {
    execFile(cmd, args, { ...opts, timeout: 60_000 }, (error, stdout, stderr) => resolve({ error, stdout, stderr }));
  });
}

test('the docs have snippets to check', () => {
  assert.ok(all.length >= 5, `${all.length} snippets in ${FILES.join(', ')}`);
  for (const f of ['README.md', 'docs/adoption.md', 'book/src/guides/js-agent.md']) assert.ok(all.some((s) => s.file === f), `${f} has a snippet`);
});

test('every README/docs snippet type-checks with tsc --strict and runs', async (t) => {
  let ts;
  try {
    ts = createRequire(import.meta.url)('typescript');
  } catch {
    t.skip('typescript is not installed: run scripts/setup');
    return;
  }
  const dir = mkdtempSync(join(REPO, '.snippets-'));
  try {
    const names = all.map((s, i) => {
      const name = `${s.file.replace(/[^A-Za-z0-9]+/g, '_')}_L${s.line}_${i}.mts`;
      // A relative import names a file from the repository root.
      const code = s.code.replace(/from '\.\/(?!\.)/g, "from '../");
      writeFileSync(join(dir, name), `${s.prelude}\n${code}\nexport {};\n`);
      return name;
    });
    // One program per snippet, as each would be a project of its own (two frameworks' types in
    // one program can disagree where no user's project would have both).
    const options = {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: ['node'],
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true,
    };
    const errors = [];
    let program;
    for (const name of names) {
      program = ts.createProgram([join(dir, name)], options);
      errors.push(...ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file ? `${relative(dir, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line}` : '';
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }));
    }
    assert.deepEqual(errors, [], 'tsc --strict');

    for (const [i, s] of all.entries()) {
      if (s.typecheckOnly) continue;
      const js = ts.transpileModule(readFileSync(join(dir, names[i]), 'utf8'), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      }).outputText;
      const file = join(dir, names[i].replace(/\.mts$/, '.mjs'));
      writeFileSync(file, js);
      const { error, stderr } = await run(process.execPath, [file], { cwd: dir });
      assert.equal(error, null, `${s.file}:${s.line} failed to run:\n${stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
