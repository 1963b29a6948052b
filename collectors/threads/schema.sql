-- schema.sql — the threads collector's tables: thread_sample (one row per interval),
-- thread_interval (one row per thread per interval), thread_event (threads created,
-- exited, renamed) and offcpu_stack (where threads blocked: the off-CPU profile).
--
-- collectors/threads/load.c fills them; man/ptop-capture.5 documents them. A figure
-- of a lane that did not run is NULL, never 0.

CREATE TABLE IF NOT EXISTS thread_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval (CLOCK_MONOTONIC ns)
	interval_ns INTEGER,
	pid INTEGER,                  -- NULL in cgroup mode
	ebpf INTEGER NOT NULL,        -- 1: the eBPF lane ran (on/off-CPU figures, stacks)
	offcpu_min_ns INTEGER,        -- --offcpu-min; NULL: no off-CPU stacks
	skipped INTEGER,              -- blocks shorter than offcpu_min_ns (not in offcpu_stack)
	skipped_ns INTEGER            -- their time
);

CREATE TABLE IF NOT EXISTS thread_interval (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	tid INTEGER NOT NULL,
	comm TEXT,                    -- its name at the end of the interval
	oncpu_ns INTEGER,             -- eBPF lane (NULL without it)
	off_runnable_ns INTEGER,      -- off CPU, runnable: waiting for a CPU
	off_sleep_ns INTEGER,         -- off CPU, sleeping
	off_blocked_ns INTEGER,       -- off CPU, blocked uninterruptibly (D)
	voluntary INTEGER,            -- switches
	involuntary INTEGER,
	migrations INTEGER,
	cpu INTEGER,                  -- CPU it last ran on
	state TEXT,                   -- /proc lane (NULL without it): stat's state letter
	wchan TEXT,                   -- where it waits in the kernel; NULL: running or none
	proc_cpu_ns INTEGER,          -- utime + stime growth (NULL on its first interval)
	proc_voluntary INTEGER,
	proc_involuntary INTEGER,
	proc_cpu INTEGER              -- stat's processor
);

CREATE TABLE IF NOT EXISTS thread_event (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- when (exact = 1), or the poll that saw it (exact = 0)
	type TEXT NOT NULL,           -- create | exit | rename
	tid INTEGER NOT NULL,
	by_tid INTEGER,               -- create: the creating thread; NULL: unknown
	comm TEXT,                    -- the name (rename: the new one)
	exact INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS offcpu_stack (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval the blocks ended in
	interval_ns INTEGER,
	tid INTEGER NOT NULL,
	reason TEXT NOT NULL,         -- sleep | blocked
	user_stack_id INTEGER,        -- stack.stack_id; NULL: none
	kernel_stack_id INTEGER,      -- stack.stack_id; NULL: none
	total_ns INTEGER NOT NULL,    -- time blocked (switch-out to wakeup)
	count INTEGER NOT NULL        -- blocks
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS thread_sample_time ON thread_sample (cap, time_ns);
CREATE INDEX IF NOT EXISTS thread_interval_time ON thread_interval (cap, time_ns);
CREATE INDEX IF NOT EXISTS thread_event_time ON thread_event (cap, time_ns);
CREATE INDEX IF NOT EXISTS offcpu_stack_time ON offcpu_stack (cap, time_ns);
