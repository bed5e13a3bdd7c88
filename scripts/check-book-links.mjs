#!/usr/bin/env node
// Checks the built book offline: every relative link (href, src) of every page of book/build
// names a file the build has, and every #anchor an id on that page. Links with a scheme
// (https:, mailto:) are not followed: nothing here reaches the network.
//
// The pages under docs/, crates/ and packages/ are the repository's own markdown files (symbolic
// links in book/src), so their links are written for the repository: a link of theirs that
// leaves the book is accepted when it names a file of the repository from the file's place.
//
//   node scripts/check-book-links.mjs [BUILD_DIR]     (default book/build; run mdbook build first)
// Prints one line per broken link and exits 1 if there is one.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BUILD = process.argv[2] ?? join(REPO, 'book', 'build');
const MIRRORED = ['docs', 'crates', 'packages'];

/** Every file under `dir`, relative to it, with / separators. */
function files(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p, base) : [relative(base, p).split(sep).join('/')];
  });
}

/** The href and src values of a page (HTML attributes, either quote). */
export function links(html) {
  const out = [];
  for (const m of html.matchAll(/\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) out.push(m[1] ?? m[2]);
  return out;
}

/** The ids (and names) a page's fragments may point at. */
export function anchors(html) {
  const ids = new Set();
  for (const m of html.matchAll(/\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) ids.add(m[1] ?? m[2]);
  return ids;
}

const decode = (s) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The repository file a page of the build was made from, if it is a mirrored one. */
function sourceOf(page) {
  if (!MIRRORED.includes(page.split('/')[0])) return null;
  const md = page.endsWith('/index.html') || page === 'index.html'
    ? page.replace(/index\.html$/, 'README.md')
    : page.replace(/\.html$/, '.md');
  return existsSync(join(REPO, md)) ? md : null;
}

/** Whether the repository has `path`, or the markdown file a .html path was made from. */
function inRepoFile(path) {
  return existsSync(join(REPO, path)) || existsSync(join(REPO, path.replace(/\.html$/, '.md')));
}

function main() {
  if (!existsSync(join(BUILD, 'index.html'))) {
    console.error(`check-book-links: ${BUILD} has no index.html: run \`mdbook build book\` first`);
    process.exit(2);
  }
  const all = files(BUILD);
  const have = new Set(all);
  const pages = all.filter((f) => f.endsWith('.html'));
  const idCache = new Map();
  const idsOf = (page) => {
    if (!idCache.has(page)) idCache.set(page, anchors(readFileSync(join(BUILD, page), 'utf8')));
    return idCache.get(page);
  };
  const broken = [];
  let checked = 0;
  for (const page of pages) {
    // 404.html is served from wherever a missing page was asked for: its links are absolute.
    if (page === '404.html') continue;
    const html = readFileSync(join(BUILD, page), 'utf8');
    for (const raw of links(html)) {
      const link = raw.replaceAll('&amp;', '&').trim();
      if (link === '' || /^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//')) continue;
      checked++;
      const [pathPart, fragment] = [link.split('#')[0].split('?')[0], link.includes('#') ? link.slice(link.indexOf('#') + 1) : null];
      let target = pathPart === '' ? page : normalize(join(dirname(page), decode(pathPart))).split(sep).join('/');
      if (target.endsWith('/') || (target !== page && have.has(`${target}/index.html`))) target = `${target.replace(/\/$/, '')}/index.html`;
      if (!have.has(target)) {
        // A mirrored page's link, from its place (print.html holds every page, links rebased
        // to the top): a repository file under a mirrored folder is accepted.
        const mirrored = sourceOf(page) !== null || page === 'print.html';
        const inRepo = normalize(decode(target)).split(sep).join('/');
        if (mirrored && MIRRORED.includes(inRepo.split('/')[0]) && inRepoFile(inRepo)) continue;
        broken.push(`${page}: ${raw} (no ${target} in the build)`);
        continue;
      }
      if (fragment !== null && fragment !== '' && target.endsWith('.html') && !idsOf(target).has(decode(fragment))) {
        broken.push(`${page}: ${raw} (${target} has no id "${decode(fragment)}")`);
      }
    }
  }
  for (const b of broken) console.error(`check-book-links: ${b}`);
  console.log(`check-book-links: ${checked} relative links in ${pages.length} pages, ${broken.length} broken`);
  process.exit(broken.length ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
