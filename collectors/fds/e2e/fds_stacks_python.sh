# The opening sites of --fd-stacks in a python3 built without frame pointers (Debian's
# /usr/bin/python3, and pyenv's python3 when it is on PATH), attached by --pid as an
# on-call engineer would: a script waits for SIGUSR1, then os.open()s /dev/null exactly
# 250 times from a Python function and keeps every fd. With the default --user-stacks
# auto the recorder finds no frame pointers in python3.11 and takes stack copies:
#   - the sites whose stack starts in libc's open and passes the interpreter
#     (_PyEval_EvalFrameDefault) hold exactly 250 opens, all still open;
#   - each reaches _start with no frame unplaced ([unknown]): a frame-pointer walk
#     read data as return addresses here ("[unknown]+0x7478742e676f6b");
# With --user-stacks fp the report says the stacks are not to be trusted and shows no
# site's callers as its stack. Skips, saying why, when no such python3 is installed.
. tests/e2e/lib.sh
need_ebpf

pys=()
[ -x /usr/bin/python3 ] && pys+=("$(readlink -f /usr/bin/python3)")
# pyenv's shim is a script: the interpreter it runs is what is recorded
real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && real=$(readlink -f "$real") &&
	[ -n "$real" ] && [[ " ${pys[*]} " != *" $real "* ]] && pys+=("$real")
[ ${#pys[@]} -gt 0 ] || skip "no python3 installed (Debian's: apt-get install python3)"

cat >"$TMP/leak.py" <<'PYEOF'
import os, signal, sys, time
kept = []
def leak_one():
    kept.append(os.open("/dev/null", os.O_RDONLY))
def leak(n):
    for _ in range(n):
        leak_one()
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
print("ready", flush=True)
signal.sigwait([signal.SIGUSR1])
leak(250)
time.sleep(0.3)
print("leaked", len(kept), flush=True)
PYEOF

# record PY MODE NAME: PY running leak.py attached by --pid with --user-stacks MODE
record() {
	local py=$1 m=$2 n=$3 ppid rpid
	"$py" "$TMP/leak.py" >"$TMP/$n.out" &
	ppid=$!
	kill_at_exit "$ppid"
	wait_line "$TMP/$n.out" '^ready' "$py to wait"
	"$REC" --fd-stacks --user-stacks "$m" --interval 200ms --pid "$ppid" -o "$TMP/$n.ptop" \
		2>"$TMP/$n.err" &
	rpid=$!
	kill_at_exit "$rpid"
	wait_line "$TMP/$n.err" 'recording pid' "the recorder to attach"
	kill -USR1 "$ppid"
	wait "$ppid" || fail "$py exited $?"
	wait "$rpid" || { cat "$TMP/$n.err" >&2; fail "ptop-record exited $?"; }
	grep -q '^leaked 250$' "$TMP/$n.out" || fail "$py did not open its 250 fds"
	"$ANA" report fds --format json "$TMP/$n.ptop" >"$TMP/$n.json"
	"$ANA" report fds "$TMP/$n.ptop" | sed -n '/^opening sites/,$p' | head -4 | cut -c1-240
}

# the sites of the script's opens: libc's open first, the interpreter below
SITES='[s for s in j["opens_and_closes"]["sites"] if "open" in s["stack"].split(" < ")[0] and "_PyEval_EvalFrameDefault" in s["stack"]]'

i=0
for py in "${pys[@]}"; do
	i=$((i + 1))
	grep -q eh_frame_hdr <<<"$(readelf -S "$py" 2>/dev/null)" ||
		{ echo "($py: no .eh_frame_hdr, not checked)"; continue; }
	n=auto$i
	record "$py" auto $n
	assert_eq "$py: json user_stacks" dwarf "$(jget "$TMP/$n.json" 'j["opens_and_closes"]["user_stacks"]')"
	assert_eq "$py: opened at the script's sites" 250 "$(jget "$TMP/$n.json" "sum(s['opened'] for s in $SITES)")"
	assert_eq "$py: still open there" 250 "$(jget "$TMP/$n.json" "sum(s['live'] for s in $SITES)")"
	assert_eq "$py: those sites not reaching _start" 0 \
		"$(jget "$TMP/$n.json" "len([s for s in $SITES if s['stack'].split(' < ')[-1] != '_start'])")"
	assert_eq "$py: unplaced frames in them" 0 \
		"$(jget "$TMP/$n.json" "sum(s['stack'].count('[unknown]') for s in $SITES)")"
	n=fp$i
	record "$py" fp $n
	assert_eq "$py fp: json stacks_trusted" False "$(jget "$TMP/$n.json" 'j["opens_and_closes"]["stacks_trusted"]')"
	assert_eq "$py fp: opened at the sites in libc's open" 250 \
		"$(jget "$TMP/$n.json" 'sum(s["opened"] for s in j["opens_and_closes"]["sites"] if "open" in s["stack"])')"
	assert_eq "$py fp: sites shown with callers" 0 \
		"$(jget "$TMP/$n.json" 'len([s for s in j["opens_and_closes"]["sites"] if " < " in s["stack"]])')"
done

# launched through a script (pyenv's shim, a bash script running python3): auto cannot
# judge the program before it runs, takes copies, and the sites are whole
shim=$(command -v python3 || true)
if [ -n "$shim" ] && [ "$(head -c2 "$shim")" = '#!' ]; then
	sed -e 's/^signal\..*//' "$TMP/leak.py" >"$TMP/leak_now.py"
	"$REC" --quiet --fd-stacks --interval 200ms -o "$TMP/shim.ptop" -- "$shim" "$TMP/leak_now.py" \
		>"$TMP/shim.out" || fail "ptop-record of $shim exited $?"
	grep -q '^leaked 250$' "$TMP/shim.out" || fail "$shim did not open its 250 fds"
	has "opening user stacks dwarf (--user-stacks auto: python3 is a script" \
		<<<"$(q "$TMP/shim.ptop" "select detail from probe where name = 'fds'")" ||
		fail "$shim: the fds probe detail does not say dwarf for a script"
	"$ANA" report fds --format json "$TMP/shim.ptop" >"$TMP/shim.json"
	# the interpreter's own opens (its imports) pass there too, and are closed
	assert_eq "$shim: still open at the interpreter's sites (the script's)" 250 \
		"$(jget "$TMP/shim.json" "sum(s['live'] for s in $SITES)")"
	assert_eq "$shim: sites with fds still open not reaching _start" 0 \
		"$(jget "$TMP/shim.json" "len([s for s in $SITES if s['live'] and s['stack'].split(' < ')[-1] != '_start'])")"
else
	echo "(python3 on PATH is not a script: the launch through a shim is not checked)"
fi
