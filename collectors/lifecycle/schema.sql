-- schema.sql — the lifecycle collector's table: lifecycle_event, the processes of the
-- target's subtree: one row per process there at the start ('present'), and per fork,
-- exec and exit as the kernel saw them.
--
-- collectors/lifecycle/load.c fills it. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS lifecycle_event (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- when (CLOCK_MONOTONIC ns); 'present': the start's read
	kind TEXT NOT NULL,           -- 'present', 'fork', 'exec', 'exit'
	pid INTEGER NOT NULL,         -- the process (root pid namespace); fork: the new one
	ppid INTEGER,                 -- present, fork: its parent; else NULL
	tid INTEGER,                  -- fork: the forking thread; exec: the task; exit: the last
	                              -- thread; present: NULL
	comm TEXT,                    -- the task's name
	filename TEXT,                -- exec: the file as exec was given it
	argv TEXT,                    -- exec: the arguments (a JSON array of strings, capped);
	                              -- present: /proc/PID/cmdline's; NULL when not read
	argv_truncated INTEGER,       -- 1: argv is cut (longer than the recorder's cap)
	argc INTEGER,                 -- exec: the argument count the kernel had
	exit_code INTEGER,            -- exit: the code (NULL when a signal ended it)
	signal INTEGER,               -- exit: the signal that ended it (NULL: none)
	core_dumped INTEGER,          -- exit: 1 when it dumped core
	cpu_ns INTEGER                -- exit: on-CPU time of its threads; NULL when not measured
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS lifecycle_event_pid ON lifecycle_event (cap, pid, time_ns);
