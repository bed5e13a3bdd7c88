// esbuild: the .wasm is imported with the `file` loader (copied next to the bundle, its URL
// returned) and handed to `init`, since esbuild does not follow `new URL(..., import.meta.url)`.
import init from 'shr-wasm';
import wasmUrl from 'shr-wasm/web/shr_wasm_bg.wasm';
import { report, routeAGraph } from './routes.js';

report(routeAGraph(() => init(new URL(wasmUrl, import.meta.url))));
