# Shared by the project's scripts (source it, don't run it): where things are, PATH, a timer.
# Sets variables for the calling script only; nothing is written to any profile.
# shellcheck shell=bash
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# wasm-opt (npm binaryen) and the npm tools first, then cargo-installed trunk and wasm-bindgen.
export PATH="$REPO/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# Debian's chromium: wasm-bindgen-test-runner finds chromedriver through CHROMEDRIVER,
# the Playwright tests read CHROME_PATH for playwright-core's executablePath.
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"

now_s() { date +%s.%N; }
# elapsed START -> seconds since START, one decimal
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }

# The wasm optimizer every build uses: npm's binaryen (`npm ci` at the repository root).
WASM_OPT="$REPO/node_modules/.bin/wasm-opt"

# optimize_wasm FILE...: `wasm-opt -O3` in place, with the features rustc's wasm32 output uses
# (the npm package is built for speed: `route` sits on every request of an agent).
optimize_wasm() {
  local f
  for f in "$@"; do
    "$WASM_OPT" -O3 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-reference-types --enable-multivalue "$f" -o "$f.opt" &&
      mv "$f.opt" "$f" || return 1
  done
}
