// The book's shape, checked without building it (scripts/test builds it and checks its links
// with scripts/check-book-links.mjs): every page is in the table of contents, every page with
// Rust blocks is compiled by the shr-book crate, every splice block names a command and its
// end, the link checker finds what it must, and the README stays short.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(REPO, 'book/src');

/** Every markdown page under book/src, relative to it, symbolic links included. */
function pages(dir = '') {
  return readdirSync(join(SRC, dir)).sort().flatMap((name) => {
    const rel = dir ? `${dir}/${name}` : name;
    const st = lstatSync(join(SRC, rel));
    if (st.isDirectory()) return pages(rel);
    if (st.isSymbolicLink() && !name.endsWith('.md')) return [];
    if (st.isSymbolicLink() && existsSync(join(SRC, rel)) && lstatSync(join(SRC, rel)).isDirectory()) return [];
    return name.endsWith('.md') ? [rel] : [];
  });
}

test('the README is at most 200 lines', () => {
  const lines = readFileSync(join(REPO, 'README.md'), 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  assert.ok(lines.length <= 200, `README.md has ${lines.length} lines`);
});

test("the README's relative links name files of the repository", () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const targets = [...readme.matchAll(/\]\(([^)\s]+)\)|src="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
  assert.ok(targets.length >= 20, `${targets.length} links`);
  for (const t of targets) {
    if (/^[a-z]+:/i.test(t) || t.startsWith('#')) continue;
    const path = t.split('#')[0];
    assert.ok(existsSync(join(REPO, path)), `README.md links ${t}, and ${path} is missing`);
  }
});

test('every page of the book is in SUMMARY.md, and every page it lists exists', () => {
  const summary = readFileSync(join(SRC, 'SUMMARY.md'), 'utf8');
  const listed = [...summary.matchAll(/\]\(([^)]+\.md)\)/g)].map((m) => m[1]);
  for (const page of listed) assert.ok(existsSync(join(SRC, page)), `SUMMARY.md lists ${page}, which is missing`);
  // docs/ is the repository's docs folder: its pages are in the book when listed.
  const own = pages().filter((p) => p !== 'SUMMARY.md' && !p.startsWith('docs/'));
  for (const page of own) assert.ok(listed.includes(page), `book/src/${page} is not in SUMMARY.md`);
  for (const doc of readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'))) {
    assert.ok(listed.includes(`docs/${doc}`), `docs/${doc} is not in the book's SUMMARY.md`);
  }
});

test('every page with Rust blocks is compiled by the shr-book crate', () => {
  const doctest = readFileSync(join(REPO, 'book/doctest.rs'), 'utf8');
  const included = new Set([...doctest.matchAll(/include_str!\("([^"]+)"\)/g)].map((m) => m[1]));
  const withRust = [
    ...pages().filter((p) => !lstatSync(join(SRC, p)).isSymbolicLink()).map((p) => [`src/${p}`, join(SRC, p)]),
    ['../README.md', join(REPO, 'README.md')],
  ].filter(([, file]) => /^```rust/m.test(readFileSync(file, 'utf8')));
  assert.ok(withRust.length >= 2, 'the README and the Rust guide have Rust blocks');
  for (const [rel] of withRust) assert.ok(included.has(rel), `book/doctest.rs does not include ${rel}`);
  for (const rel of included) assert.ok(existsSync(join(REPO, 'book', rel)), `book/doctest.rs includes ${rel}, which is missing`);
});

test('no code block of the compiled pages is untagged (rustdoc would compile it as Rust)', () => {
  const doctest = readFileSync(join(REPO, 'book/doctest.rs'), 'utf8');
  for (const [, rel] of doctest.matchAll(/include_str!\("([^"]+)"\)/g)) {
    const lines = readFileSync(join(REPO, 'book', rel), 'utf8').split('\n');
    let open = false;
    lines.forEach((line, i) => {
      if (!/^```/.test(line)) return;
      if (!open) assert.notEqual(line.trim(), '```', `${rel}:${i + 1}: a code block without a language`);
      open = !open;
    });
  }
});

test('splice blocks name a shr command and are closed', async () => {
  const { blocks, pages: splicePages, select } = await import('../../scripts/splice-tables');
  let count = 0;
  for (const file of splicePages()) {
    const found = blocks(file, readFileSync(join(REPO, file), 'utf8').split('\n'));
    count += found.length;
  }
  assert.ok(count >= 10, `${count} splice blocks`);
  const out = 'title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nafter\nend';
  assert.deepEqual(select(out, { from: '| a', until: null, toEnd: false }), ['| a | b |', '|---|---|', '| 1 | 2 |']);
  assert.deepEqual(select(out, { from: '| a', until: 'end', toEnd: false }), ['| a | b |', '|---|---|', '| 1 | 2 |', '', 'after']);
  assert.deepEqual(select(out, { from: 'after', until: null, toEnd: true }), ['after', 'end']);
  assert.throws(() => select(out, { from: 'nowhere', until: null, toEnd: false }), /no line starts with/);
  assert.throws(() => blocks('x.md', ['<!-- splice: ls -la -->', '<!-- /splice -->']), /runs a `shr` command/);
  assert.throws(() => blocks('x.md', ['<!-- splice: shr bench -->', 'text']), /without its/);
  assert.deepEqual(blocks('x.md', ['```text', '<!-- splice: shr bench -->', '<!-- /splice -->', '```']), [], 'an example in a code block');
});

test('the link checker finds a missing page and a missing anchor, and passes a sound build', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shr-book-links-'));
  try {
    mkdirSync(join(dir, 'guides'));
    writeFileSync(join(dir, 'index.html'), '<h1 id="top">SHR</h1><a href="guides/a.html#part">a</a><a href="https://example.org/x">out</a>');
    writeFileSync(join(dir, 'guides/a.html'), '<h2 id="part">Part</h2><a href="../index.html#top">back</a><img src="../pic.png">');
    writeFileSync(join(dir, 'pic.png'), '');
    const checker = join(REPO, 'scripts/check-book-links.mjs');
    let run = spawnSync(process.execPath, [checker, dir], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    writeFileSync(join(dir, 'guides/a.html'), '<h2 id="part">Part</h2><a href="../index.html#gone">back</a><a href="b.html">b</a>');
    run = spawnSync(process.execPath, [checker, dir], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /guides\/a\.html: \.\.\/index\.html#gone \(index\.html has no id "gone"\)/);
    assert.match(run.stderr, /guides\/a\.html: b\.html \(no guides\/b\.html in the build\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
