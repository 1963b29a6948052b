#!/usr/bin/env bash
# update.sh — rewrites tests/golden/expected/ from the current build (PTOP_BUILD, default
# build/), for a change of the analyzer's output that is meant. Review `git diff
# tests/golden/expected` before committing: every line that changed is a changed answer.
set -euo pipefail
cd "$(dirname "$0")/../.."
PTOP_GOLDEN_UPDATE=1 PTOP_BUILD=${PTOP_BUILD:-build} bash tests/e2e/golden.sh
