#!/usr/bin/env bash
# Rewrites the generated parts of the docs from the code: docs/cli.md's option tables (between
# <!-- options:begin --> and <!-- options:end -->) as `richpush help --markdown` prints them, and docs/limits.md's
# table (between <!-- limits:begin --> and <!-- limits:end -->) as `richpush help --limits` prints it.
# OptionSchemaTests fails until this has been run.
#
#   scripts/update-option-table.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product richpush >/dev/null

# replace FILE MARKER: puts standard input between FILE's <!-- MARKER:begin --> and <!-- MARKER:end --> lines.
replace() {
  python3 -c '
import sys
path, marker = sys.argv[1], sys.argv[2]
text = sys.stdin.read()
document = open(path).read()
begin, end = "<!-- " + marker + ":begin -->\n", "<!-- " + marker + ":end -->"
if begin not in document or end not in document:
    sys.exit(path + " has no " + begin.strip() + " ... " + end + " markers")
head, rest = document.split(begin, 1)
open(path, "w").write(head + begin + text + rest[rest.index(end):])
' "$1" "$2"
}

.build/debug/richpush help --markdown | replace docs/cli.md options
.build/debug/richpush help --limits | replace docs/limits.md limits
