#!/usr/bin/env bash
# Fails if a room of src/ includes a room above it (src/README.md, "Who may include whom"):
# cli -> emit -> io -> sweep -> schedule -> search -> pricing -> cost -> mapping -> model -> core.
set -euo pipefail
src="${1:?usage: check_layering.sh SRC_DIR}"
cd "$src"
grep -rHE '^#include "[a-z_]+/' core model mapping cost pricing search schedule sweep io emit cli |
  awk -F: '
    BEGIN { n = split("core model mapping cost pricing search schedule sweep io emit cli", r, " ")
            for (i = 1; i <= n; ++i) rank[r[i]] = i }
    { split($1, p, "/"); room = p[1]
      match($2, /"[a-z_]+\//); inc = substr($2, RSTART + 1, RLENGTH - 2)
      if ((inc in rank) && rank[inc] > rank[room]) {
        print "layering: " $1 " includes " inc "/ (a room above " room "/)" > "/dev/stderr"; bad = 1 } }
    END { exit bad }'
