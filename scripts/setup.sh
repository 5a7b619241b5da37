#!/usr/bin/env bash
# Installs what kapla needs from Debian's packages (when missing), then configures and builds.
# Idempotent and quick when everything is present. Run from anywhere; builds into <repo>/build.
#   scripts/setup.sh            install + configure + build (Release)
#   BUILD_DIR=dir scripts/setup.sh, CMAKE_ARGS="-DKAPLA_WERROR=ON" scripts/setup.sh
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$repo/build}

packages=(
  g++ make cmake pkg-config
  libopenmpi-dev openmpi-bin libhdf5-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # ONNX import (kapla import, --network MODEL.onnx): protobuf classes and shape inference.
  libonnx-dev libprotobuf-dev
  # Timeloop problem files (kapla import LAYER.yaml, kapla export-timeloop).
  libyaml-cpp-dev
  python3 python3-h5py python3-pandas python3-matplotlib hdf5-tools
  slurm-wlm munge
  # -fsanitize=fuzzer for the libFuzzer harnesses (ctest fuzz_parsers, scripts/dev/fuzz.sh):
  # Debian's default clang and its runtime libraries of the same version (on Debian 12 these
  # pull clang-14 and libclang-rt-14-dev).
  clang libclang-rt-dev
  # The house style's formatter (ctest source_format, scripts/dev/format.sh); clang-format-14.
  clang-format
)

# One dpkg-query for all of them (a call per package took seconds on a loaded machine).
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null |
            awk '$2 == "installed" { print $1 }' || true)
missing=()
for p in "${packages[@]}"; do
  if ! grep -qxF "$p" <<<"$installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: error: missing packages; run as root or: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Daemons from slurm-wlm/munge must not start here; the Slurm test starts its own.
  made_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if ((made_policy)); then rm -f /usr/sbin/policy-rc.d; fi
fi

jobs=$(nproc 2>/dev/null || echo 2)
if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$build_dir" -j "$jobs"
echo "setup: built $build_dir/src/kapla" >&2
