# The security collector's ground truth (issue 24): sec_exec makes one anonymous page
# executable with mprotect (in sec_anon_exec), maps one page writable and executable at
# once (sec_wx_map) and dlopens libhdl_a.so (sec_load_library). Checks:
#  - exactly one anonymous executable mapping that is not W^X: an mprotect, at the
#    address the fixture printed, its caller named sec_anon_exec, origin jit;
#  - exactly one W^X mapping: an mmap at the printed address, caller sec_wx_map;
#  - exactly one executable mapping of the library, backing its full path, origin
#    library (made by the loader), caller sec_load_library;
#  - the report in text, JSON and CSV agree; figures security.wx_mappings 1, and 0 for
#    the fixture without its W^X page; diff with --fail-on 'security.wx_mappings > 0'
#    fails on a new W^X mapping (exit 1) and passes without one;
#  - a ptrace(PTRACE_SEIZE) of a --pid target by another process: one attach, seize,
#    naming the target; a set-user-ID exec (a copy of id, run as nobody): one exec with
#    euid 0 and uid 65534;
#  - the lanes: lsm_denials unsupported with its reason; cap_denied active exactly when
#    the kernel has the capability:cap_capable tracepoint;
#  - off by default: without --enable security, report says not collected and the
#    figures are "not measured".
. tests/e2e/lib.sh
need_ebpf
need_fixture sec_exec
need_fixture libhdl_a.so
command -v python3 >/dev/null || skip "python3 is not installed (the JSON checks)"

LIB=$(readlink -f "$FIX/libhdl_a.so")
S=$TMP/sec.ptop N=$TMP/nowx.ptop
"$REC" --quiet --enable security -o "$S" -- "$FIX/sec_exec" "$LIB" >"$TMP/out" ||
	fail "recording sec_exec"
anon=$(sed -n 's/.*anon=0x\([0-9a-f]*\).*/\1/p' "$TMP/out")
wx=$(sed -n 's/.*wx=0x\([0-9a-f]*\).*/\1/p' "$TMP/out")
[ -n "$anon" ] && [ -n "$wx" ] || fail "sec_exec printed no addresses: $(cat "$TMP/out")"
anon=$((16#$anon)) wx=$((16#$wx))

assert_eq "anonymous, not W^X" 1 "$(q "$S" "select count(*) from sec_exec_mem where ok and not wx and backing = 'anonymous'")"
assert_eq "the anonymous one: an mprotect of the page" "mprotect,$anon,4096,5" \
	"$(q "$S" "select call, vm_start, vm_end - vm_start, prot from sec_exec_mem where ok and not wx and backing = 'anonymous'")"
assert_eq "W^X" 1 "$(q "$S" "select count(*) from sec_exec_mem where ok and wx")"
assert_eq "the W^X one: an mmap of the page" "mmap,$wx,4096,7,anonymous" \
	"$(q "$S" "select call, vm_start, vm_end - vm_start, prot, backing from sec_exec_mem where wx")"
assert_eq "the library, executable once" 1 "$(q "$S" "select count(*) from sec_exec_mem where backing = '$LIB'")"
# the timeline (report events --category security): the same three mappings, the W^X one at
# its address
"$ANA" report events --category security --format csv "$S" >"$TMP/ev.csv" || fail "report events: exit $?"
assert_eq "events: the W+X mmap" 1 "$(grep -c "mmap W+X PROT_EXEC at $(printf %x "$wx") len 4096: ok" "$TMP/ev.csv")"
assert_eq "events: the anonymous mprotect" 1 "$(grep -c "mprotect PROT_EXEC at $(printf %x "$anon") len 4096: ok" "$TMP/ev.csv")"
assert_eq "events: one W+X" 1 "$(grep -c "W+X" "$TMP/ev.csv")"
# the fixture is gone by the poll that reads the events: the paths are the kernel side's
assert_eq "every file by its whole path" 0 "$(q "$S" "select count(*) from sec_exec_mem where name_only")"
assert_eq "every call succeeded" 0 "$(q "$S" "select count(*) from sec_exec_mem where not ok")"
assert_eq "every call has its stack" 0 "$(q "$S" "select count(*) from sec_exec_mem where stack_id is null")"

"$ANA" report security --format json "$S" >"$TMP/r.json" || fail "report --format json: exit $?"
row() { jget "$TMP/r.json" "[r['$2'] for r in j['exec_memory'] if $1][0]"; }
assert_eq "anonymous: caller" sec_anon_exec "$(row "r['backing'] == 'anonymous' and not r['wx']" caller)"
assert_eq "anonymous: origin" jit "$(row "r['backing'] == 'anonymous' and not r['wx']" origin)"
assert_eq "W^X: caller" sec_wx_map "$(row "r['wx']" caller)"
assert_eq "W^X: prot" rwx "$(row "r['wx']" prot)"
assert_eq "library: caller" sec_load_library "$(row "r['backing'] == '$LIB'" caller)"
assert_eq "library: origin" library "$(row "r['backing'] == '$LIB'" origin)"
row "r['backing'] == '$LIB'" stack | has 'dlopen' || fail "the library's stack has no dlopen frame"
assert_eq "JSON counts: wx" 1 "$(jget "$TMP/r.json" "j['counts']['wx']")"
assert_eq "JSON counts: anonymous" 1 "$(jget "$TMP/r.json" "j['counts']['anonymous']")"
assert_eq "JSON counts: every row" "$(q "$S" "select count(*) from sec_exec_mem")" \
	"$(jget "$TMP/r.json" "len(j['exec_memory'])")"

"$ANA" report security "$S" >"$TMP/r.txt" || fail "report (text): exit $?"
has -E '1 W\^X, 1 anonymous' <"$TMP/r.txt" || fail "text: no counts line: $(head -3 "$TMP/r.txt")"
has -E 'mmap .* rwx +1 +anonymous +jit +sec_wx_map ' <"$TMP/r.txt" || fail "text: no W^X row"
has -E 'lsm_denials +unsupported +[a-zA-Z]' <"$TMP/r.txt" || fail "text: no reason for lsm_denials"
"$ANA" report security --format csv "$S" >"$TMP/r.csv" || fail "report --format csv: exit $?"
head -1 "$TMP/r.csv" | has '^t_s,call,start,end,len,prot,wx,backing,origin,caller,result' ||
	fail "csv: header $(head -1 "$TMP/r.csv")"
has ',sec_anon_exec,ok,' <"$TMP/r.csv" || fail "csv: no anonymous row named by its caller"

# the replay tab and the Overview line
"$ANA" replay --dump --tab security --at 1 "$S" >"$TMP/tab.txt" || fail "replay --tab security: exit $?"
has -E 'executable mappings, 1 W\^X' <"$TMP/tab.txt" ||
	fail "replay: no counts line: $(cat "$TMP/tab.txt")"
has -E 'mmap +rwx W\^X anonymous' <"$TMP/tab.txt" || fail "replay: no W^X row"
"$ANA" replay --dump --tab overview --at 1 "$S" | has -E 'Security +[0-9]+ executable mappings, 1 W\^X' ||
	fail "replay: no Overview line"

# the lanes: the truth about this kernel
assert_eq "lsm_denials" unsupported "$(q "$S" "select state from probe_lane where probe = 'security' and lane = 'lsm_denials'")"
if grep -qa btf_trace_cap_capable /sys/kernel/btf/vmlinux; then want=active; else want=unsupported; fi
assert_eq "cap_denied (the kernel's tracepoint)" "$want" \
	"$(q "$S" "select state from probe_lane where probe = 'security' and lane = 'cap_denied'")"

# figures and the diff gate
"$REC" --quiet --enable security -o "$N" -- "$FIX/sec_exec" "$LIB" nowx >/dev/null ||
	fail "recording sec_exec nowx"
"$ANA" figures "$S" | has -E '^security\.wx_mappings +1 +count' || fail "figures: wx_mappings is not 1"
"$ANA" figures "$N" | has -E '^security\.wx_mappings +0 +count' || fail "nowx: wx_mappings is not 0"
"$ANA" figures "$S" | has -E '^security\.anon_exec +1 +count' || fail "figures: anon_exec is not 1"
expect_exit 1 "$ANA" diff --fail-on 'security.wx_mappings > 0' "$N" "$S"
has 'security.wx_mappings' <"$TMP/out" || fail "diff: the failed gate is not named"
expect_exit 0 "$ANA" diff --fail-on 'security.wx_mappings > 0' "$S" "$N"

# ptrace: a --pid target seized by another process
sleep 600 & # killed at exit; long: the recorder starts slowly under emulation (6.1 VM)
spid=$!
kill_at_exit "$spid"
"$REC" --quiet --enable security --pid "$spid" -o "$TMP/p.ptop" >/dev/null &
rpid=$!
kill_at_exit "$rpid"
# the file is named once its header is in it, after every collector's start
wait_until "the recording's start" test -s "$TMP/p.ptop"
python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(0x4206, int(sys.argv[1]), 0, 0) != 0:
    sys.exit("PTRACE_SEIZE: " + os.strerror(ctypes.get_errno()))' "$spid" ||
	fail "PTRACE_SEIZE of $spid failed (yama ptrace_scope $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo -))"
kill -INT "$rpid" # the seize is done: the recording ends (its final poll reads the ring)
wait "$rpid" || fail "recording --pid: exit $?"
assert_eq "ptrace: one seize of the target" "1,$spid,seize,0,0" \
	"$(q "$TMP/p.ptop" "select count(*), tracee, request, ret, by_target from sec_ptrace")"

# a set-user-ID exec: a copy of id, run as nobody
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	chmod 755 "$TMP"
	cp "$(command -v id)" "$TMP/id_suid" && chmod 4755 "$TMP/id_suid"
	"$REC" --quiet --enable security -o "$TMP/x.ptop" -- \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/id_suid" >"$TMP/id.out" ||
		fail "recording the set-user-ID exec"
	if has 'euid=0' <"$TMP/id.out"; then
		assert_eq "set-user-ID exec" "1,65534,0,$TMP/id_suid" \
			"$(q "$TMP/x.ptop" "select count(*), uid, euid, path from sec_setid_exec")"
	else
		echo "note: $TMP is mounted nosuid: the set-user-ID exec not checked"
	fi
else
	echo "note: no setpriv or not root: the set-user-ID exec not checked"
fi

# off by default
"$REC" --quiet --duration 1s -o "$TMP/off.ptop" -- "$FIX/sec_exec" "$LIB" >/dev/null || fail "recording without security"
"$ANA" report security "$TMP/off.ptop" | has 'not collected' || fail "off by default: report does not say not collected"
"$ANA" replay --dump --tab security --at 0.5 "$TMP/off.ptop" | has -i 'not collected' ||
	fail "off by default: the tab does not say not collected"
"$ANA" figures "$TMP/off.ptop" | has -E '^security\.wx_mappings +not measured' || fail "off: wx_mappings not 'not measured'"
echo "ok: security"
