#!/bin/sh
# `cargo xtask fetch-deps` (xtask/src/base/deps/), under the name the build errors and docs give.
cd "$(dirname "$0")/.." && exec cargo xtask fetch-deps "$@"
