// Writes a brotli (.br, quality 11) and a gzip (.gz, level 9) copy next to each compressible file
// of the built page, for scripts/serve.mjs to send to a browser that accepts them (issue 48: the
// page's first drawn graph on a slow network). Trunk runs it after every build (Trunk.toml's
// post_build hook, on its staging folder); by hand: node scripts/compress-dist.mjs [DIR].
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.svg', '.txt', '.map']);
const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? 'dist';

for (const name of readdirSync(dir)) {
  const path = join(dir, name);
  if (!statSync(path).isFile() || !COMPRESSIBLE.has(extname(name))) continue;
  const body = readFileSync(path);
  const br = brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  writeFileSync(`${path}.br`, br);
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
  console.error(`${name}: ${body.length} bytes, brotli ${br.length}`);
}
