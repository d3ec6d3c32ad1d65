#!/usr/bin/env bash
# Lists the distinct compile-time guard conditions in the tree and checks that each one is in
# the guard table of docs/platforms.md and docs/ja/platforms.md.
#
#   bash scripts/guard-table.sh          check; exit 1 and name what is missing
#   bash scripts/guard-table.sh --list   each condition, its file count and its files
#
# A condition is the text after `#if`, `#elseif` (Swift) or `#elif` (C), whitespace collapsed
# and a trailing // or /* */ comment dropped; `#ifdef X` counts as `defined(X)` and `#ifndef X`
# as `!defined(X)`; `#else` and `#endif` are ignored. Files: `git ls-files` *.swift, *.c, *.h
# and Package.swift. A condition is in a table when it appears there between backticks,
# exactly (a `\|` in the Markdown counts as `|`). The table is the one after the line
# `<!-- guard-table -->`, up to the first line that is not a table row.
#
# GUARD_TABLE_EXTRA: more conditions, one a line, treated as if they were in the tree (to try
# a condition before it is committed).
set -euo pipefail

cd "$(dirname "$0")/.."
docs=(docs/platforms.md docs/ja/platforms.md)

# "condition<TAB>file" for every guard line.
guards() {
    { git ls-files -- '*.swift' '*.c' '*.h'; echo Package.swift; } | sort -u | while IFS= read -r file; do
        [ -f "$file" ] || continue
        awk -v file="$file" '
            function emit(text) {
                sub(/\/\/.*$/, "", text)
                gsub(/\/\*[^*]*\*+([^\/*][^*]*\*+)*\//, "", text)
                gsub(/[ \t]+/, " ", text); sub(/^ /, "", text); sub(/ $/, "", text)
                if (text != "") printf "%s\t%s\n", text, file
            }
            pending != "" {
                line = $0
                more = sub(/\\[ \t]*$/, "", line)
                pending = pending " " line
                if (!more) { emit(pending); pending = "" }
                next
            }
            /^[ \t]*#[ \t]*(if|elseif|elif|ifdef|ifndef)[ \t(!]/ {
                line = $0
                sub(/^[ \t]*#[ \t]*/, "", line)
                keyword = line; sub(/[ \t(!].*$/, "", keyword)
                line = substr(line, length(keyword) + 1)
                if (keyword == "ifdef" || keyword == "ifndef") {
                    gsub(/^[ \t]+|[ \t]+$/, "", line)
                    sub(/[ \t].*$/, "", line)
                    line = (keyword == "ifndef" ? "!" : "") "defined(" line ")"
                }
                if (sub(/\\[ \t]*$/, "", line)) { pending = line; next }
                emit(line)
            }
        ' "$file"
    done
}

table() {  # the guard table of one doc, `\|` read as `|`
    awk '/<!-- guard-table -->/ { on = 1; next } on && /^\|/ { print; seen = 1; next } on && seen { exit }' "$1" \
        | sed 's/\\|/|/g'
}

pairs=$(guards)
conditions=$( { printf '%s\n' "$pairs" | cut -f1; printf '%s\n' "${GUARD_TABLE_EXTRA:-}"; } | sed '/^$/d' | sort -u)

if [ "${1:-}" = "--list" ]; then
    while IFS= read -r condition; do
        files=$(printf '%s\n' "$pairs" | awk -F'\t' -v c="$condition" '$1 == c { print $2 }' | sort -u)
        count=$(printf '%s' "$files" | grep -c . || true)
        printf '%s\t%s files\n' "$condition" "$count"
        [ -n "$files" ] && printf '    %s\n' $files
    done <<< "$conditions"
    exit 0
fi

missing=0
for doc in "${docs[@]}"; do
    text=$(table "$doc")
    if [ -z "$text" ]; then
        echo "$doc: no guard table (a '<!-- guard-table -->' line followed by a table)"
        missing=$((missing + 1))
        continue
    fi
    while IFS= read -r condition; do
        if ! grep -qF -- "\`$condition\`" <<< "$text"; then
            echo "$doc: missing \`$condition\`"
            missing=$((missing + 1))
        fi
    done <<< "$conditions"
done

if [ "$missing" -gt 0 ]; then
    exit 1
fi
fileCount=$(printf '%s\n' "$pairs" | cut -f2 | sort -u | grep -c . || true)
echo "guard-table: $(grep -c . <<< "$conditions") distinct conditions in $fileCount files, all in ${docs[*]}"
