# Sourced by the smoke scripts that read with direct I/O.
# fresh_direct_workdir DIR: DIR emptied and created; exits 77 (CTest:
# skipped) if its file system refuses O_DIRECT (tmpfs does; RocksDB would
# fail every read).
fresh_direct_workdir() {
  rm -rf "$1"
  mkdir -p "$1"
  if ! dd if=/dev/zero of="$1/.direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
    echo "SKIP: $1 is on a file system without O_DIRECT (tmpfs?): direct reads cannot be tried here"
    exit 77
  fi
  rm -f "$1/.direct-probe"
}
