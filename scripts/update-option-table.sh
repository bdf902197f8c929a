#!/usr/bin/env bash
# Rewrites docs/cli.md's option tables (between <!-- options:begin --> and <!-- options:end -->) from the option
# declarations, as `richpush help --markdown` prints them, and docs/limits.md's table (between <!-- limits:begin -->
# and <!-- limits:end -->) as `richpush help --limits` prints it; OptionSchemaTests fails until this has been run.
#
#   scripts/update-option-table.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product richpush >/dev/null
.build/debug/richpush help --markdown | python3 -c '
import re, sys
table = sys.stdin.read()
readme = open("docs/cli.md").read()
begin, end = "<!-- options:begin -->\n", "<!-- options:end -->"
if begin not in readme or end not in readme:
    sys.exit("docs/cli.md has no " + begin.strip() + " ... " + end + " markers")
head, rest = readme.split(begin, 1)
open("docs/cli.md", "w").write(head + begin + table + rest[rest.index(end):])
'
.build/debug/richpush help --limits | python3 -c '
import sys
table = sys.stdin.read()
document = open("docs/limits.md").read()
begin, end = "<!-- limits:begin -->\n", "<!-- limits:end -->"
if begin not in document or end not in document:
    sys.exit("docs/limits.md has no " + begin.strip() + " ... " + end + " markers")
head, rest = document.split(begin, 1)
open("docs/limits.md", "w").write(head + begin + table + rest[rest.index(end):])
'
