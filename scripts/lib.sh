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
