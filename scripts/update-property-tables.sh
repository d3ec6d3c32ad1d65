#!/usr/bin/env bash
# Rewrites the property tables of docs/how-checks-work.md and docs/ja/how-checks-work.md from the
# checks themselves (`exercise-runner --properties-markdown en|ja`), between their markers.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product exercise-runner >/dev/null
for pair in "en:docs/how-checks-work.md" "ja:docs/ja/how-checks-work.md"; do
    language=${pair%%:*} file=${pair#*:}
    tables=$(mktemp)
    .build/debug/exercise-runner --properties-markdown "$language" > "$tables"
    python3 - "$file" "$tables" <<'PY'
import sys
path, tables = sys.argv[1], open(sys.argv[2]).read().strip()
text = open(path).read()
begin, end = tables.splitlines()[0], tables.splitlines()[-1]
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    text = head + tables + tail
else:
    text = text.rstrip() + "\n\n" + tables + "\n"
open(path, "w").write(text)
PY
    rm -f "$tables"
    echo "updated $file"
done
