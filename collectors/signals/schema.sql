-- schema.sql — the signals collector's tables: signal_count, the signals sent to the
-- target's threads (stage 'generate') and taken by them (stage 'deliver'), one row per
-- interval per (stage, signal, si_code, result, sender, receiving thread) that had any
-- (the eBPF lane); signal_sets and signal_set_change, the threads' signal sets (the /proc
-- lane).
--
-- collectors/signals/load.c fills it. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS signal_count (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval: when the counts were read (every
	                              -- signal counted is at or before it)
	interval_ns INTEGER,          -- its length; NULL when unknown
	pid INTEGER,                  -- the target (the envelope's pid)
	stage TEXT NOT NULL,          -- 'generate' (sent to the thread) or 'deliver' (taken by it)
	sig INTEGER NOT NULL,         -- signal number
	name TEXT NOT NULL,           -- 'SIGUSR1', 'SIGRTMIN+3'
	code INTEGER NOT NULL,        -- si_code: 0 SI_USER, 128 SI_KERNEL, -6 SI_TKILL, ...
	result TEXT NOT NULL,         -- generate: delivered, blocked, ignored, already_pending,
	                              -- overflow_fail, lose_info; deliver: handled, ignored,
	                              -- fatal, core, stop, default_ignored
	sender_pid INTEGER,           -- generate: the sending process, thread and name (root
	sender_tid INTEGER,           -- pid namespace); NULL at delivery
	sender_comm TEXT,
	tgid INTEGER NOT NULL,        -- the receiving process and thread
	tid INTEGER NOT NULL,
	count INTEGER NOT NULL,       -- signals in the interval
	first_ns INTEGER,             -- CLOCK_MONOTONIC: the key's first signal ever, and its
	last_ns INTEGER               -- latest
);

-- The /proc lane (without eBPF): each thread's signal sets, one row when the thread is first
-- seen and at each interval one of its sets changed, and one (gone, sets 0) when it is no
-- more. Bit s-1 of a set is signal s.
CREATE TABLE IF NOT EXISTS signal_sets (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- when the sets were read
	interval_ns INTEGER,          -- since the reading before; NULL when unknown
	pid INTEGER,                  -- the target (the envelope's pid)
	tgid INTEGER NOT NULL,        -- the thread's process and the thread
	tid INTEGER NOT NULL,
	pending INTEGER NOT NULL,     -- SigPnd: pending for the thread
	shared_pending INTEGER NOT NULL, -- ShdPnd: pending for the whole process
	blocked INTEGER NOT NULL,     -- SigBlk
	ignored INTEGER NOT NULL,     -- SigIgn
	caught INTEGER NOT NULL,      -- SigCgt: with a handler of the program's
	queued INTEGER,               -- SigQ: signals queued for the process's real user, and
	queue_limit INTEGER,          -- its limit; NULL when the file had no SigQ
	gone INTEGER NOT NULL         -- 1: the thread is no more
);

-- The changes of signal_sets, one row per thread, set and reading that changed it:
-- the signals added to the set and those removed, by name, comma-separated ('' none).
-- A thread's first row is a change from empty sets; its end is what 'gone'.
CREATE TABLE IF NOT EXISTS signal_set_change (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	tgid INTEGER NOT NULL,
	tid INTEGER NOT NULL,
	what TEXT NOT NULL,           -- pending, shared_pending, blocked, ignored, caught; gone
	added TEXT NOT NULL,
	removed TEXT NOT NULL
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS signal_count_time ON signal_count (cap, time_ns);
CREATE INDEX IF NOT EXISTS signal_sets_tid ON signal_sets (cap, tid, time_ns);
CREATE INDEX IF NOT EXISTS signal_set_change_time ON signal_set_change (cap, time_ns);
