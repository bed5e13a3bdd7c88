# Shared by the project's scripts: where things are, and a timer.
# shellcheck shell=bash
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$REPO/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"

now_s() { date +%s.%N; }
# elapsed START -> seconds with one decimal
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }
