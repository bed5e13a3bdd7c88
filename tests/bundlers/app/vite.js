// Vite: the glue's `new URL('shr_wasm_bg.wasm', import.meta.url)` is followed, so `init()` is all.
import init from 'shr-wasm';
import { report, routeAGraph } from './routes.js';

report(routeAGraph(() => init()));
