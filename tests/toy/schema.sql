-- schema.sql — the toy collector's tables: toy_sample, one row per interval, and
-- toy_wait, where its threads waited in a system call at each poll.
--
-- tests/toy/load.c fills it. The build appends this file to schema/schema.sql in
-- collectors.def order; the part after the line "-- At the poll that ended an interval, the target's threads found in a system call, by the
-- user address the call returns to (a stack of one frame, placed and named by
-- `symbolize`). No row for an interval whose syscall files could not be read (a drop).
CREATE TABLE IF NOT EXISTS toy_wait (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- the poll (end of the interval)
	interval_ns INTEGER,
	pid INTEGER,
	stack_id INTEGER NOT NULL,    -- stack.stack_id: one user frame, the call's return address
	threads INTEGER NOT NULL      -- threads in a call there
);

-- @@ indexes @@" runs after the data
-- is loaded. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS toy_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval (CLOCK_MONOTONIC ns)
	interval_ns INTEGER,          -- its length; NULL when unknown
	pid INTEGER,
	count INTEGER NOT NULL,       -- minor faults over the interval, times scale
	total INTEGER NOT NULL,       -- /proc/PID/stat minflt at the end of it (unscaled)
	scale INTEGER NOT NULL,       -- --toy-scale
	waits_read INTEGER NOT NULL   -- 1: toy_wait holds this poll's waits; 0: the threads'
	                              -- syscall files could not be read (a drop), not measured
);

-- At the poll that ended an interval, the target's threads found in a system call, by the
-- user address the call returns to (a stack of one frame, placed and named by
-- `symbolize`). No row for an interval whose syscall files could not be read (a drop).
CREATE TABLE IF NOT EXISTS toy_wait (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- the poll (end of the interval)
	interval_ns INTEGER,
	pid INTEGER,
	stack_id INTEGER NOT NULL,    -- stack.stack_id: one user frame, the call's return address
	threads INTEGER NOT NULL      -- threads in a call there
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS toy_sample_time ON toy_sample (cap, time_ns);
