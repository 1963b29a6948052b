-- schema.sql — the signals collector's table: signal_count, the signals sent to the
-- target's threads (stage 'generate') and taken by them (stage 'deliver'), one row per
-- interval per (stage, signal, si_code, result, sender, receiving thread) that had any.
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

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS signal_count_time ON signal_count (cap, time_ns);
