#!/usr/bin/env bash
# Installs the Debian packages linebloom builds with, only if any is missing.
# Run by tests/run.sh and bench/run.sh. Arguments name further packages
# a caller needs (the RocksDB make and RocksJava builds).
set -euo pipefail
LINEBLOOM_PACKAGES=(
  build-essential cmake pkg-config
  libxxhash-dev liblz4-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
  librocksdb-dev rocksdb-tools libgflags2.2
  clang-14 libclang-rt-14-dev clang-format-14
  "$@"
)
missing=()
for p in "${LINEBLOOM_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
