# Every option a --help names is in the man page, and every option the man page
# lists is in --help:
#   ptop-analyze: for each command, the options of the usage of `ptop-analyze CMD
#     --help` are exactly those of the command's SYNOPSIS entry in ptop-analyze(1), and
#     all its options (usage and option lines) exactly those of that entry and of the
#     .TP items of the command's section;
#   ptop-record: likewise, with the SYNOPSIS and the OPTIONS section of ptop-record(1);
#   every collector --help marks off by default is named under --enable in ptop-record(1);
#   the kinds of `ptop-analyze report` (from the collectors' parts) are those of ptop-analyze(1);
#   the exit status table is the same at the end of every --help and in ptop-analyze(1);
#   and groff -ww finds nothing to warn about in any page.
. "$(dirname "$0")/lib.sh"
MAN=$(dirname "$0")/../../man

# OPTS: the options ("-o", "--format") in stdin's text, one a line, sorted.
opts() {
	sed 's/\\-/-/g; s/\\f[BIRP]//g' |
		{ grep -oE '(^|[][ ,|(])--?[a-z][a-z0-9-]*' || true; } | sed 's/^[^-]*//' |
		{ grep -vE '^-[a-z][a-z]' || true; } | sort -u
}
# usage_opts: the options of a --help text's usage, up to its first blank line
usage_opts() { awk '/^$/ { exit } { print }' | opts; }
# help_opts: those and the options that start a line of the rest ("  -o, --output OUT
# text"): only the part before the description (two spaces or more), else prose such
# as "a --cgroup capture" would count.
help_opts() {
	awk 'NR == 1 { u = 1 } u && /^$/ { u = 0 } u { print; next }
		/^ +-/ { sub(/^ +/, ""); sub(/   *.*/, ""); print }' | opts
}
# man_synopsis PAGE CMD: the options of "CMD"'s entry in PAGE's SYNOPSIS
man_synopsis() {
	awk -v c="$2" '/^\.SH SYNOPSIS/ { s = 1; next } /^\.SH/ { s = 0 }
		s && /^\.B ptop-/ { on = (c == "" || $3 == c) } s && on' "$1" | opts
}
# man_items PAGE SECTION: the options of the .TP items of the .SS (or .SH) section
# whose title starts with SECTION, up to the next section of that level
man_items() {
	awk -v t="$2" '
		/^\.S[HS] / { lvl = $1; title = $0; sub(/^\.S[HS] /, "", title)
			if (index(title, t) == 1) { on = 1; my = lvl; next }
			if (on && (lvl == my || lvl == ".SH")) on = 0 }
		on && tp { print; tp = 0 } on && /^\.TP/ { tp = 1 }' "$1" | opts
}
errors=0
differs() { # WHAT LEFT-NAME LEFT RIGHT-NAME RIGHT
	local only
	only=$(comm -23 <(echo "$3") <(echo "$5"))
	[ -n "$only" ] && { echo "FAIL: $1: in $2, not in $4: $(echo $only)" >&2; errors=$((errors + 1)); }
	only=$(comm -13 <(echo "$3") <(echo "$5"))
	[ -n "$only" ] && { echo "FAIL: $1: in $4, not in $2: $(echo $only)" >&2; errors=$((errors + 1)); }
	return 0
}

cmds=$("$ANA" --help | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { c = 0 }')
[ "$(echo $cmds | wc -w)" -ge 8 ] || fail "ptop-analyze --help lists only: $cmds"
check() { # WHAT HELP-TEXT PAGE SYNOPSIS-CMD SECTION
	local u h syn items
	u=$(echo "$2" | usage_opts)
	h=$(echo "$2" | help_opts)
	syn=$(man_synopsis "$3" "$4")
	items=$(man_items "$3" "$5")
	[ -n "$h" ] || fail "$1 --help names no option"
	differs "$1" "the --help usage" "$u" "the SYNOPSIS" "$syn"
	differs "$1" "--help" "$(echo "$h" | grep -vxE -- '--help|-h' || true)" "the SYNOPSIS and section $5" \
		"$(printf '%s\n%s\n' "$syn" "$items" | { grep -vxE -- '--help|-h' || true; } | sort -u)"
	echo "$1: $(echo $h)"
}
for c in $cmds; do
	check "ptop-analyze $c" "$("$ANA" "$c" --help)" "$MAN/ptop-analyze.1" "$c" "$c "
done
check ptop-record "$("$REC" --help)" "$MAN/ptop-record.1" "" OPTIONS

# report's kinds (the collectors' reports): those of `report --help`, its usage and its
# list, are the man page's, in its SYNOPSIS and its section title, in the same order; each
# has a section (its JSON output) in ptop-analyze(1)
help=$("$ANA" report --help)
kinds=$(echo "$help" | awk 'NR == 1 { print $4 }')
listed=$(echo "$help" | awk '/^Reports over/ { on = 1; next } on && /^  --/ { exit }
	on && /^  [a-z]/ { printf "%s%s", n++ ? "|" : "", $1 }')
syn=$(awk '/^\.B ptop-analyze report$/ { getline; print $2; exit }' "$MAN/ptop-analyze.1")
title=$(awk '/^\.SS report .*\[OPTIONS\]/ { print $3; exit }' "$MAN/ptop-analyze.1")
[ -n "$kinds" ] && [ "$(echo "$kinds" | tr '|' '\n' | wc -l)" -ge 8 ] ||
	fail "ptop-analyze report --help names only the kinds '$kinds'"
for k in "listed in the help: $listed" "in the SYNOPSIS: $syn" "in the section title: $title"; do
	[ "${k#*: }" = "$kinds" ] ||
		{ echo "FAIL: report kinds: the usage has $kinds, $k" >&2; errors=$((errors + 1)); }
done
for k in $(echo "$kinds" | tr '|' ' '); do
	grep -qx "\.SS report $k" "$MAN/ptop-analyze.1" ||
		{ echo "FAIL: ptop-analyze(1) has no section .SS report $k" >&2; errors=$((errors + 1)); }
done
echo "report kinds: $kinds"

# each kind's own options (its option table, collectors/NAME/report.c): `report KIND --help`
# lists them with the common ones, each helped as "KIND: ..."; in ptop-analyze(1) the item of
# that option in the report section names the kind (".BR KIND :")
for k in $(echo "$kinds" | tr '|' ' '); do
	own=$("$ANA" report "$k" --help | awk -v k="$k" '/^  --/ && index($0, " " k ": ") { print $1 }')
	for o in $own; do
		"$ANA" report --help | has -E -- "^  $o .* $k: " ||
			{ echo "FAIL: report $k --help has $o, report --help not as $k's" >&2; errors=$((errors + 1)); }
		python3 - "$MAN/ptop-analyze.1" "$o" "$k" <<'PY' ||
import re, sys
man, opt, kind = sys.argv[1:]
sec = man and open(man).read().split(".SS report ", 1)[1].split("\n.SH ", 1)[0]
items = sec.split("\n.TP\n")[1:]
esc = opt.replace("-", "\\-")
mine = [i for i in items if i.split("\n", 1)[0].split()[1] == esc]
sys.exit(0 if any(re.search(r"^\.BR? %s\b" % re.escape(kind), i, re.M) for i in mine) else 1)
PY
			{ echo "FAIL: ptop-analyze(1): no item $o naming report $k" >&2; errors=$((errors + 1)); }
	done
	echo "report $k: its own options: $(echo $own)"
done

off=$("$REC" --help | awk '/^Collectors/ { c = 1; next } c && /\[off by default/ { print $1 }')
[ -n "$off" ] || fail "ptop-record --help marks no collector off by default (heap is)"
enable=$(awk '/^\.BI? \\-\\-enable/ { on = 1; next } on && /^\.(TP|SS|SH)/ { exit } on' "$MAN/ptop-record.1")
for c in $off; do
	echo "$enable" | has -x "\.BR\? $c" ||
		{ echo "FAIL: ptop-record(1) --enable does not name $c, off by default" >&2; errors=$((errors + 1)); }
done
echo "off by default: $(echo $off)"

# exit status: one table for every command, printed at the end of `ptop-analyze --help` and
# of each command's --help, the same codes and words as ptop-analyze(1) EXIT STATUS
table=$("$ANA" --help | sed -n '/^exit status (every command):/,$p')
[ -n "$table" ] || fail "ptop-analyze --help has no exit status table"
for c in $cmds; do
	[ "$("$ANA" "$c" --help | sed -n '/^exit status (every command):/,$p')" = "$table" ] ||
		{ echo "FAIL: ptop-analyze $c --help: no exit status table, or another one" >&2; errors=$((errors + 1)); }
done
echo "$table" | python3 -c '
import re, sys
help = {}
for line in sys.stdin.read().splitlines()[1:]:
    m = re.match(r"  (\d)  (.*)", line)
    if m:
        code = m.group(1); help[code] = m.group(2)
    else:
        help[code] += " " + line.strip()
man = open(sys.argv[1]).read()
sec = man.split(".SH EXIT STATUS", 1)[1].split("\n.PP", 1)[0]
items = {}
for m in re.finditer(r"\.TP\n\.B (\d)\n(.*?)(?=\n\.TP\n|\Z)", sec, re.S):
    t = re.sub(r"^\.[A-Z]+ ?", "", m.group(2), flags=re.M)
    t = re.sub(r"\\f[BIRP]|\\\((lq|rq)|\"|\\", "", t)
    t = re.sub(r" ([:,.)])", r"\1", " ".join(t.split()))
    items[m.group(1)] = t.lower()
def norm(t): return " ".join(t.replace("\"", "").split()).lower().rstrip(".")
bad = []
if sorted(help) != sorted(items):
    bad.append("codes: --help %s, man %s" % (sorted(help), sorted(items)))
for c, words in help.items():
    if c in items and norm(words) not in items[c]:
        bad.append("code %s: --help says \"%s\", the man page \"%s\"" % (c, words, items[c]))
for b in bad: print("FAIL: exit status: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
' "$MAN/ptop-analyze.1" || errors=$((errors + 1))
echo "exit status: $(echo "$table" | grep -c '^  [0-9]') codes, the same in every --help and the man page"
# and as the table says: output that could not be written is an internal error (3), for
# any command, never 1 (a diff gate's)
"$REC" --no-ebpf -o "$TMP/x.ptop" -- true 2>/dev/null || fail "recording true failed"
rc=0
"$ANA" info "$TMP/x.ptop" >/dev/full 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] || { echo "FAIL: info >/dev/full exited $rc, not 3: $(cat "$TMP/err")" >&2; errors=$((errors + 1)); }

# export's profiles come from the collectors' parts: the man page's export line names the
# same ones as --help's usage
hp=$("$ANA" export --help | sed -n 's/.*\[--profile \([^]]*\)\].*/\1/p' | head -1)
mp=$(sed -n 's/^\.SS export .*\[\\-\\-profile \([^]]*\)\].*/\1/p' "$MAN/ptop-analyze.1")
if [ -z "$hp" ] || [ "$hp" != "$mp" ]; then
	echo "FAIL: export --profile: --help says '$hp', the man page '$mp'" >&2
	errors=$((errors + 1))
fi

if command -v groff >/dev/null; then
	w=$(groff -man -ww -z "$MAN"/*.[1-9] 2>&1)
	[ -z "$w" ] || { echo "FAIL: groff -ww warns: $w" >&2; errors=$((errors + 1)); }
else
	echo "groff is not installed: the pages' syntax was not checked"
fi
[ "$errors" = 0 ] || fail "$errors mismatches between --help and the man pages"
echo "man_help: ok"
