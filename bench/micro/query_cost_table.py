#!/usr/bin/env python3
"""The table of query_cost.sh: instructions per counted unit, from the
callgrind runs it made.

  query_cost_table.py OUT_DIR BUILTIN_LABEL FLAGS

OUT_DIR holds, per filter (api, plugin, builtin) and op (build, neg,
batch32, get5), callgrind_annotate's output of the run (annotate.FILTER.OP)
and linebloom-query-cost's own output (log.FILTER.OP), whose "counted=N"
says how many units (keys built, queries, keys of batches, Gets) the
measured function handled.
"""
import os
import re
import sys

OPS = ("build", "neg", "batch32", "get5")


def program_totals(annotate_text):
    """The instructions callgrind counted ("129,644 (100.0%)  PROGRAM TOTALS")."""
    for line in annotate_text.splitlines():
        if "PROGRAM TOTALS" in line:
            return int(line.split()[0].replace(",", ""))
    raise ValueError("no PROGRAM TOTALS line")


def counted(log_text):
    """The units the measured function handled (the log's " counted=N ")."""
    found = re.findall(r" counted=(\d+) ", log_text)
    if not found:
        raise ValueError("no counted= in the tool's output")
    return int(found[-1])


def per_unit(out_dir, filt, op):
    """Instructions per unit, as the table prints it (one decimal)."""
    with open(os.path.join(out_dir, "annotate.%s.%s" % (filt, op))) as f:
        ir = program_totals(f.read())
    with open(os.path.join(out_dir, "log.%s.%s" % (filt, op))) as f:
        return "%.1f" % (ir / counted(f.read()))


def table(cells, label, flags):
    """The Markdown table; CELLS: {(filter, op): instructions per unit text}.
    The ratios are of the printed figures."""
    out = ["Instructions per key built, per negative query, per key of a negative batch of 32, per 5-level Get "
           "(callgrind, LINEBLOOM_KERNEL=avx2, 16-byte keys, 10 bits/key; %s)" % flags,
           "builtin = %s" % label, "", "| op | api | plugin | builtin | plugin / builtin | api / builtin |",
           "|---|---|---|---|---|---|"]
    for op in OPS:
        a, p, b = (cells[(f, op)] for f in ("api", "plugin", "builtin"))
        out.append("| %s | %s | %s | %s | %.2f | %.2f |" % (op, a, p, b, float(p) / float(b), float(a) / float(b)))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out_dir, label, flags = sys.argv[1:]
    cells = {(f, op): per_unit(out_dir, f, op) for f in ("api", "plugin", "builtin") for op in OPS}
    print("\n".join(table(cells, label, flags)))


if __name__ == "__main__":
    main()
