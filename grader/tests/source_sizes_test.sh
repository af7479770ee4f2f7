#!/bin/sh
# Files of one job, folders a reader can take in (issue 17; STYLE.md): fails, naming every
# offender, when a source file of grader/, common/, emu/ or labs/ holds more than 500 lines, or
# when a folder of theirs holds more than 16 source files besides its tests (*_test.*,
# *_test_util.h).
# Usage: source_sizes_test.sh <kit root>
set -u
cd "$1" || exit 2
max_lines=500
max_files=16
sources() {
  find "$@" -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \
    -o -name '*.cc' -o -name '*.hpp' -o -name '*.c' \)
}
# One awk over every file (a wc per file costs seconds on a loaded machine).
long=$(sources grader common emu labs | sort | tr '\n' '\0' |
  xargs -0 awk -v max="$max_lines" 'FNR == 1 && NR > 1 && last > max { print "  " name ": " last " lines" }
    { name = FILENAME; last = FNR }
    END { if (last > max) print "  " name ": " last " lines" }')
crowded=$(sources grader common emu labs | grep -v -e '_test\.[^/]*$' -e '_test_util\.h$' |
  sed 's|/[^/]*$||' | sort | uniq -c | awk -v max="$max_files" '$1 > max { print "  " $2 ": " $1 " source files" }')
status=0
if [ -n "$long" ]; then
  echo "source files over $max_lines lines:"
  echo "$long"
  status=1
fi
if [ -n "$crowded" ]; then
  echo "folders with more than $max_files source files besides tests:"
  echo "$crowded"
  status=1
fi
[ "$status" -eq 0 ] && echo "no source file over $max_lines lines, no folder over $max_files source files"
exit "$status"
