#!/usr/bin/env bash
# Installs the build tree at $1 into a scratch prefix, then configures,
# builds and runs the consumer project at $2 against it with
# find_package(linebloom COMPONENTS $3...) ($3: comma-separated, may be empty).
set -euo pipefail
build_dir=$1 consumer_src=$2 components=${3:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$consumer_src" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DLINEBLOOM_COMPONENTS="${components//,/;}" >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/consumer"
for component in ${components//,/ }; do
  "$scratch/build/${component}_consumer"
done
