
import type * as Api from './shr_wasm.js';

/** The whole API (what `import * as shr` gives), as the default export carries it too. */
type Everything = typeof Api & { ShrError: typeof ShrError; isShrError: typeof isShrError; init: typeof init; initSync: typeof initSync };
/**
 * Node compiles the WebAssembly module at import: this resolves at once (for code shared with
 * the browser build). As the default export it also carries the whole API
 * (`import shr from 'shr-wasm'; new shr.Router(...)`).
 */
declare const init: ((input?: unknown) => Promise<void>) & Everything;
export default init;
export { init };
/** Node compiles the WebAssembly module at import: this does nothing. */
export declare function initSync(input?: unknown): void;
