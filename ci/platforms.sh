#!/usr/bin/env bash
# The platforms checks, `cargo xtask platforms` (xtask/src/platforms/), for ci/test.sh.
exec cargo xtask platforms "$@"
