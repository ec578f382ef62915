"""Runs RocksDB's tools for the db_bench scripts here: OPTIONS files, timed
db_bench runs, the live SSTs' filter properties, copies of a DB."""
import os
import resource
import shutil
import subprocess
import sys

import dbbench_output

OPTIONS_TEMPLATE = """[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  max_background_jobs=2
  {direct_lines}
  {db_line}
[CFOptions "default"]
  num_levels=7
  write_buffer_size={write_buffer}
  target_file_size_base={target_file}
  max_bytes_for_level_base={level_base}
  max_bytes_for_level_multiplier=10
  level_compaction_dynamic_level_bytes=true
  level0_file_num_compaction_trigger={l0_trigger}
  disable_auto_compactions={disable}
  {compression_line}
[TableOptions/BlockBasedTable "default"]
  format_version=5
  block_size=4096
  cache_index_and_filter_blocks=false
  whole_key_filtering=true
  filter_policy={policy}
"""


def add_geometry_args(parser, write_buffer):
    """The tree's geometry flags, shared by the scripts' parsers."""
    parser.add_argument("--write-buffer", type=int, default=write_buffer, help="write buffer bytes")
    parser.add_argument("--target-file", type=int, help="target file bytes (default: the write buffer)")
    parser.add_argument("--level-base", type=int, help="max_bytes_for_level_base (default: 4 x the write buffer)")


def resolve_geometry(args):
    if args.target_file is None:
        args.target_file = args.write_buffer
    if args.level_base is None:
        args.level_base = 4 * args.write_buffer


def write_lsm_options(path, args, policy, disable_auto_compactions=False, direct_reads=False, l0_trigger=4,
                      compression_line="compression=kNoCompression", db_line=""):
    """The OPTIONS file of the scripts' leveled trees.

    Seven levels sized dynamically (level_compaction_dynamic_level_bytes)
    from the level base up by 10 x, write buffers and files of the given
    sizes, 4 KiB blocks, filters and indexes held by the table readers
    (max_open_files=-1, not in the block cache), POLICY as the filter
    policy; direct reads add use_direct_reads=true.
    """
    direct_lines = "use_direct_reads=true\n  max_open_files=-1" if direct_reads else "max_open_files=-1"
    with open(path, "w") as f:
        f.write(OPTIONS_TEMPLATE.format(direct_lines=direct_lines, db_line=db_line, write_buffer=args.write_buffer,
                                        target_file=args.target_file, level_base=args.level_base,
                                        l0_trigger=l0_trigger, disable="true" if disable_auto_compactions else "false",
                                        compression_line=compression_line, policy=policy))


def preload_env(plugin):
    """The environment with PLUGIN preloaded (None: as it is)."""
    env = dict(os.environ)
    if plugin is not None:
        env["LD_PRELOAD"] = plugin
    return env


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_logged(cmd, out_path, plugin, timed=False):
    """Runs CMD with the plugin preloaded, its output to OUT_PATH.

    TIMED adds a last line "cpu_seconds S": the process's CPU time (user +
    sys), which a SIGSTOP or a busy machine does not inflate (wall-clock
    ops/s it does). A failure prints the output's tail and exits.
    """
    before = children_cpu()
    with open(out_path, "w") as out:
        rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=preload_env(plugin))
    cpu = children_cpu() - before
    if rc != 0:
        with open(out_path) as f:
            sys.stderr.write("".join(f.readlines()[-20:]))
        sys.exit("%s exited with %d (output: %s)" % (cmd[0], rc, out_path))
    if timed:
        with open(out_path, "a") as out:
            out.write("cpu_seconds %.3f\n" % cpu)


def tool_output(cmd, plugin):
    """A tool's standard output, its errors dropped (as the listings need)."""
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                          env=preload_env(plugin), text=True, errors="replace").stdout


def sst_filters(db, plugin, ldb, sst_dump):
    """(level, file, filter entries, filter bytes) of every live SST of DB.

    The live files come from the MANIFEST (ldb manifest_dump), entries and
    bytes from each table's properties (sst_dump --show_properties), the
    plugin preloaded so the tools can name linebloom's filter policy.
    """
    listing = tool_output([ldb, "--db=" + db, "manifest_dump"], plugin)
    rows = []
    for level, number in dbbench_output.manifest_files(listing):
        sst = "%s/%06d.sst" % (db, number)
        props = tool_output([sst_dump, "--file=" + sst, "--show_properties"], plugin)
        rows.append((level, number) + dbbench_output.filter_properties(props))
    return rows


def copy_db(src, dst):
    """A copy of a DB directory with times and modes (cp -a)."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True, copy_function=shutil.copy2)


def read_text(path):
    with open(path, errors="replace") as f:
        return f.read()


def tool_next_to_plugin(plugin, name):
    """A tool of the plugin's build tree (PLUGIN is <build>/integration/
    rocksdb/liblinebloom_rocksdb.so): <build>/integration/rocksdb/tools/NAME
    where the build puts it, else <build>/bench/rocksdb/NAME (the tools'
    place in older build trees, tried second so a stale copy left there is
    never preferred)."""
    here = os.path.dirname(plugin)
    places = [os.path.join(here, "tools", name), os.path.join(here, "..", "..", "bench", "rocksdb", name)]
    return next((p for p in places if os.path.exists(p)), places[0])
