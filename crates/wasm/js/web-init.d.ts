import type { InitInput, SyncInitInput } from './shr_wasm.js';
import type * as Api from './shr_wasm.js';

/** The whole API, as the default export carries it too. */
type Everything = Omit<typeof Api, 'default' | 'initSync'> & { ShrError: typeof ShrError; isShrError: typeof isShrError; init: typeof init; initSync: typeof initSync };
/**
 * Fetches and compiles the WebAssembly module, once; the API is usable when it resolves. Without
 * an argument the .wasm is fetched from next to this file (`new URL(..., import.meta.url)`, which
 * Vite and webpack follow); a bundler that does not copy it (esbuild) needs its URL given.
 * Before it, `new Router()`, `Router.fromJson()` and `version()` throw `not_initialized`. As the
 * default export it also carries the whole API (`shr.Router`...).
 */
declare const init: ((
  input?: InitInput | Promise<InitInput> | { module_or_path: InitInput | Promise<InitInput> },
) => Promise<void>) & Everything;
export default init;
/** Compiles the WebAssembly module from its bytes (or a compiled module), synchronously. */
export declare function initSync(input: SyncInitInput | { module: SyncInitInput }): void;
