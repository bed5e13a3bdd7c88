import type { InitInput, SyncInitInput } from './shr_wasm.js';

/**
 * Fetches and compiles the WebAssembly module, once; the API is usable when it resolves. Without
 * an argument the .wasm is fetched from next to this file (`new URL(..., import.meta.url)`, which
 * Vite and webpack follow); a bundler that does not copy it (esbuild) needs its URL given.
 * Before it, `new Router()`, `Router.fromJson()` and `version()` throw `not_initialized`.
 */
export default function init(
  input?: InitInput | Promise<InitInput> | { module_or_path: InitInput | Promise<InitInput> },
): Promise<void>;
/** Compiles the WebAssembly module from its bytes (or a compiled module), synchronously. */
export declare function initSync(input: SyncInitInput | { module: SyncInitInput }): void;
