# The live replay viewer driven in tmux: it opens a capture, switches tabs, pauses,
# steps, shows the help overlay, quits with q (and with Ctrl-C), and leaves the
# terminal as it was: the pane shows the shell again. Every wait is bounded.
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
"$REC" --quiet --no-ebpf --interval 200ms -o "$TMP/run.ptop" -- "$FIX/syscall_mem" 1000 8 1500 300 >/dev/null 2>&1
"$ANA" info "$TMP/run.ptop" >/dev/null

SOCK=ptop-replay-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null || true; sleep 0.2; rm -rf "$TMP" 2>/dev/null || rm -rf "$TMP"' EXIT
pane() { tm capture-pane -p -t replay; }
# wait_for PATTERN [WHAT]: poll the pane (up to 30 s: CI machines can be loaded) until a line matches PATTERN
wait_for() {
	local i
	for i in $(seq 1 300); do
		pane | has -E -- "$1" && { echo "ok: ${2:-$1}"; return 0; }
		sleep 0.1
	done
	pane >&2
	fail "timed out waiting for: ${2:-$1}"
}
# wait_gone PATTERN [WHAT]: poll until no line matches
wait_gone() {
	local i
	for i in $(seq 1 300); do
		pane | has -E -- "$1" || { echo "ok: ${2:-gone: $1}"; return 0; }
		sleep 0.1
	done
	pane >&2
	fail "timed out waiting for this to go: ${2:-$1}"
}

tm -u new-session -d -s replay -x 160 -y 48 \
	"env -i PATH=$PATH HOME=$TMP TERM=screen LANG=C.UTF-8 XDG_CACHE_HOME=$XDG_CACHE_HOME PS1='READY\$ ' bash --norc --noprofile"
wait_for '^READY\$' "shell prompt"
tm send-keys -t replay "$ANA replay $TMP/run.ptop; echo EXITED=\$?" Enter
wait_for 'ptop replay +syscall_mem \(pid [0-9]+\)' "viewer header"
wait_for 'paused 00:00\.0 / ' "paused at the start"
wait_for 'Top syscalls' "overview tab"

tm send-keys -t replay 2
wait_for 'not collected .* unsupported' "syscalls tab: not collected (--no-ebpf)"
tm send-keys -t replay 8
wait_for 'RSS / PSS / USS over time' "memory tab by number"
tm send-keys -t replay F1
wait_for 'Top syscalls' "overview tab by F1"
tm send-keys -t replay Tab
wait_for 'not collected .* unsupported' "Tab: next tab"

# the arrows go from one interval end to the next: the recording's first interval is
# short (it ends at the first poll, ms after the start), then 200 ms each; the status
# line names the interval reached
tm send-keys -t replay Right
wait_for 'interval 1 of [0-9]+: 0\.000\.\.0\.[0-9]{3} s ' "step forward: the short first interval"
tm send-keys -t replay Right
wait_for 'interval 2 of [0-9]+: 0\.[0-9]{3}\.\.0\.2[0-9]{2} s \(0\.2[0-9]{2} s\)' "step forward again: a 200 ms interval"
wait_for 'paused 00:00\.2 / ' "paused at its end"
tm send-keys -t replay Left
wait_for 'interval 1 of [0-9]+: ' "step back"
tm send-keys -t replay S-Right
wait_for 'paused (0[0-9]:[0-9]{2}\.[0-9]) / \1 ' "shift-right: ten intervals, clamped at the end"
tm send-keys -t replay S-Left
wait_for 'paused 00:00\.0 / ' "shift-left: ten intervals back, clamped at the start"
tm send-keys -t replay Right
tm send-keys -t replay g
wait_for 'paused 00:00\.0 / ' "g: back to the start"
tm send-keys -t replay -l ']'
wait_for 'speed 2x' "] doubles the speed"
tm send-keys -t replay Space
wait_for 'playing' "space plays"
tm send-keys -t replay p
wait_for 'paused' "p pauses"
tm send-keys -t replay t
wait_for 'jump to time' "t prompts for a time"
tm send-keys -t replay 1.0 Enter
wait_for 'paused 00:01\.0 / ' "jumped to 1.0 s"
tm send-keys -t replay 8
wait_for 'VMA groups at snapshot' "memory tab at 1.0 s: VMA groups"
tm send-keys -t replay Enter
wait_for 'VMAs of .* at snapshot' "Enter drills into the selected VMA group"
tm send-keys -t replay Escape
wait_for 'VMA groups at snapshot' "Esc goes back to the groups"
tm send-keys -t replay -l '?'
wait_for "Where each tab's data came from" "help overlay"
tm send-keys -t replay Escape
wait_gone "Where each tab's data came from" "help closed"

# a smaller terminal: the viewer says so instead of drawing garbage; bigger again re-lays out
tm resize-window -t replay -x 70 -y 20
wait_for 'terminal too small: 70x20' "too-small message"
tm resize-window -t replay -x 160 -y 48
wait_for 'ptop replay +syscall_mem' "re-laid out after resize"

tm send-keys -t replay q
wait_for '^EXITED=0' "q quits with status 0"
wait_gone 'ptop replay +syscall_mem' "the viewer's screen is gone (terminal restored)"
wait_for '^READY\$ *$' "the shell prompt is back"

# Ctrl-C restores the terminal too
tm send-keys -t replay "clear; $ANA replay --play $TMP/run.ptop; echo EXITED=\$?" Enter
wait_for 'ptop replay +syscall_mem' "viewer open again"
tm send-keys -t replay C-c
wait_for '^EXITED=0' "Ctrl-C ends the viewer"
wait_gone 'ptop replay +syscall_mem' "terminal restored after Ctrl-C"
# SIGTERM restores the terminal too
tm send-keys -t replay "clear; $ANA replay $TMP/run.ptop; echo EXITED=\$?" Enter
wait_for 'ptop replay +syscall_mem' "viewer open for SIGTERM"
shell=$(tm display -p -t replay '#{pane_pid}')
viewer=$(ps -o pid= --ppid "$shell" | tr -d ' ' | sed -n 1p)
[ -n "$viewer" ] || fail "no viewer process under the pane's shell"
kill -TERM "$viewer"
wait_for '^EXITED=0' "SIGTERM ends the viewer"
wait_gone 'ptop replay +syscall_mem' "terminal restored after SIGTERM"
# colours: 256 where the terminal has them, the 8/16 basics where not, none with NO_COLOR
colours() { # TERM NO_COLOR: open the viewer, keep the pane with its escapes in $TMP/pane, quit
	tm send-keys -t replay "clear; env TERM=$1 NO_COLOR=$2 $ANA replay $TMP/run.ptop; echo EXITED=\$?" Enter
	wait_for 'ptop replay +syscall_mem' "viewer open with TERM=$1 NO_COLOR=$2"
	tm capture-pane -e -p -t replay >"$TMP/pane"
	tm send-keys -t replay q
	wait_for '^EXITED=0' "viewer closed (TERM=$1 NO_COLOR=$2)"
}
esc=$(printf '\033')
colours screen-256color ""
grep -q "${esc}\[[0-9;]*38;5;[0-9]*m" "$TMP/pane" || fail "TERM=screen-256color: no 256-colour escapes"
echo "ok: 256 colours"
colours screen ""
grep -q "${esc}\[[0-9;]*38;5;" "$TMP/pane" && fail "TERM=screen: 256-colour escapes on an 8-colour terminal"
grep -Eq "${esc}\[([0-9;]*;)?3[0-7]m" "$TMP/pane" || fail "TERM=screen: no basic colour escapes"
echo "ok: 8/16-colour fallback"
colours screen-256color 1
grep -Eq "${esc}\[([0-9;]*;)?(3[0-7]|38;5;[0-9]+)m" "$TMP/pane" && fail "NO_COLOR=1: colour escapes drawn"
echo "ok: NO_COLOR respected"
echo "replay_tmux: ok"
