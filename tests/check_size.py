#!/usr/bin/env python3
"""The size check of tests/run.sh's format stage: in the library folders
(filter_policy/, sstable/, integration/; tests aside), no C/C++ file is over
500 lines, no function over 80 lines, and no header opens with a comment
block over 60 lines.

A function is found by matching braces over the code with strings, character
literals and comments blanked out: a `{` outside any function whose text
since the previous `;`, `{` or `}` ends like a function's signature (a `)`
with qualifiers, or a constructor's initializer list) opens a function, and
its length runs from the first line of that text to the matching `}`. A
heuristic, not a C++ parser: macros that open braces would fool it.

Known violations are listed in an allow-list file, one a line (`#` starts a
comment):
    <path> file
    <path> function <name>
    <path> header-comment
An entry that no longer matches a violation is an error too, so the list
only shrinks.

usage: check_size.py [--root DIR] [--allow FILE]
"""

import argparse
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
MAX_HEADER_COMMENT_LINES = 60
FOLDERS = ("filter_policy", "sstable", "integration")
SUFFIXES = (".cc", ".h", ".c", ".cpp", ".hpp")
# A signature's end: `)` then qualifiers (const, noexcept, override, a
# trailing return type, a requires clause ...).
SIGNATURE_END = re.compile(
    r"\)\s*(?:const|volatile|noexcept(?:\s*\([^()]*\))?|override|final|mutable|&&?|\s)*"
    r"(?:->\s*[\w:<>,\s*&]+)?(?:requires\b.*)?$", re.S)
# A constructor's initializer list: `) : member(...), member{...}`.
INIT_LIST = re.compile(r"\)\s*(?:noexcept\s*)?:(?!:)", re.S)
ACCESS_LABEL = re.compile(r"\s*(?:public|private|protected)\s*:(?!:)")
TYPE_KEYWORDS = re.compile(r"^\s*(?:template\s*<.*?>\s*)?(?:class|struct|union|enum|namespace|extern)\b", re.S)


def blank_preprocessor(text):
    """The text with preprocessor lines (and their continuations) blanked."""
    lines = text.split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def blank_code(text):
    """The text with preprocessor lines, comments, strings and character
    literals replaced by spaces (newlines kept, so line numbers stay)."""
    text = blank_preprocessor(text)
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def function_name(header):
    """The name before the parameter list of a signature."""
    m = re.search(r"((?:~?[\w]+|operator\s*[^\s(]+)(?:\s*::\s*~?\w+)*)\s*(?:<[^()]*>)?\s*\($", header[: header.find("(") + 1])
    if m:
        return re.sub(r"\s+", "", m.group(1))
    return "<lambda>" if "[" in header else "?"


def matching_brace(code, i):
    """Index of the `}` matching the `{` at i (or len(code))."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code)


def functions(code):
    """(name, first line, last line) of every function in blanked code."""
    found = []
    start = 0  # where the current declaration's text begins
    i = 0
    while i < len(code):
        c = code[i]
        if c in ";}":
            start = i + 1
        elif c == "{":
            label = ACCESS_LABEL.match(code, start)
            if label:
                start = label.end()
            header = code[start:i]
            before = header.rstrip()
            in_init_list = INIT_LIST.search(header) and before and (before[-1].isalnum() or before[-1] in "_>")
            in_parameters = header.count("(") > header.count(")")  # a default argument's `{}`
            if in_init_list or in_parameters:  # part of the header, not a body
                i = matching_brace(code, i) + 1
                continue
            is_function = not TYPE_KEYWORDS.match(header) and (
                SIGNATURE_END.search(before) or INIT_LIST.search(header))
            if is_function:
                end = matching_brace(code, i)
                offset = len(header) - len(header.lstrip())
                first = code.count("\n", 0, start + offset) + 1
                found.append((function_name(header.strip()), first, code.count("\n", 0, end) + 1))
                i = end + 1
                start = i
                continue
            start = i + 1
        i += 1
    return found


def header_comment_lines(text):
    """Lines of the comment block a header opens with (up to its last
    comment line before the first line of code)."""
    count = 0
    in_block = False
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if in_block:
            count = number
            in_block = "*/" not in stripped
        elif stripped.startswith("//"):
            count = number
        elif stripped.startswith("/*"):
            count = number
            in_block = "*/" not in stripped[2:]
        elif stripped:
            break
    return count


def violations(path, text):
    """(key, message) of each violation in one file; key as in the allow-list."""
    found = []
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lines > MAX_FILE_LINES:
        found.append((f"{path} file", f"{path}: {lines} lines (at most {MAX_FILE_LINES})"))
    for name, first, last in functions(blank_code(text)):
        length = last - first + 1
        if length > MAX_FUNCTION_LINES:
            found.append((f"{path} function {name}",
                          f"{path}:{first}: function {name} is {length} lines (at most {MAX_FUNCTION_LINES})"))
    if path.endswith((".h", ".hpp")):
        comment = header_comment_lines(text)
        if comment > MAX_HEADER_COMMENT_LINES:
            found.append((f"{path} header-comment",
                          f"{path}: the comment at its top is {comment} lines (at most {MAX_HEADER_COMMENT_LINES})"))
    return found


def is_checked(path):
    parts = path.split("/")
    if parts[0] not in FOLDERS or not path.endswith(SUFFIXES):
        return False
    return not any(p in ("tests", "test", "testdata") for p in parts) and not re.search(r"_test\.\w+$", path)


def source_files(root):
    """The checked files git tracks under root (so nothing generated)."""
    listed = subprocess.run(["git", "-C", root, "ls-files", "--", *FOLDERS],
                            check=True, capture_output=True, text=True).stdout.split("\n")
    return sorted(p for p in listed if p and is_checked(p) and os.path.isfile(os.path.join(root, p)))


def read_allow_list(path):
    entries = set()
    if path:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    entries.add(" ".join(line.split()))
    return entries


def check(root, allowed):
    """Messages for violations not allowed, and for allowed ones not found."""
    errors, seen = [], set()
    for path in source_files(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for key, message in violations(path, text):
            seen.add(key)
            if key not in allowed:
                errors.append(message)
    for key in sorted(allowed - seen):
        errors.append(f"allow-list entry '{key}' matches no violation any more: remove it")
    return errors


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(here))
    parser.add_argument("--allow", default=os.path.join(here, "size_allowlist.txt"))
    args = parser.parse_args(argv)
    errors = check(args.root, read_allow_list(args.allow))
    for message in errors:
        print(message)
    if errors:
        print(f"size: {len(errors)} problem(s); split the file or function, or see {args.allow}")
        return 1
    print(f"size: {len(source_files(args.root))} files within {MAX_FILE_LINES} lines, functions within "
          f"{MAX_FUNCTION_LINES}, header comments within {MAX_HEADER_COMMENT_LINES} (allow-list aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
