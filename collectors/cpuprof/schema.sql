-- schema.sql — the cpuprof collector's tables and indexes: cpu_profile,
-- cpu_profile_process and cpu_profile_stack.
--
-- collectors/cpuprof/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

-- The CPU profile (collector cpuprof): one row per interval.
CREATE TABLE IF NOT EXISTS cpu_profile (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- 0, 1, 2... in file order; cpu_profile_stack refers to it
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	pid INTEGER,                  -- NULL on a cgroup aggregate
	requested_hz INTEGER,
	ticks INTEGER,                -- timer samples on all CPUs sampled (target or not)
	delivered_hz REAL,
	cpus INTEGER,
	samples INTEGER,              -- samples that landed on a target thread
	no_user_stack INTEGER,
	no_kernel_stack INTEGER,
	lost INTEGER,                 -- samples not aggregated (map full)
	user_stacks TEXT,             -- fp | dwarf: how user stacks were taken; NULL: before
	                              -- --user-stacks (fp)
	stack_copies INTEGER,         -- dwarf: stack copies written in the interval
	PRIMARY KEY (cap, seq)
);

-- Cgroup mode: the comm of each process with samples in a cpu_profile interval, as
-- the kernel had it when sampling (CpuProfile.processes).
CREATE TABLE IF NOT EXISTS cpu_profile_process (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- cpu_profile.seq
	pid INTEGER NOT NULL,
	comm TEXT,
	PRIMARY KEY (cap, seq, pid)
);

CREATE TABLE IF NOT EXISTS cpu_profile_stack (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- cpu_profile.seq
	user_stack_id INTEGER,        -- stack.stack_id; NULL: no user stack
	kernel_stack_id INTEGER,      -- stack.stack_id; NULL: none
	count INTEGER NOT NULL,
	pid INTEGER                   -- the process sampled (cgroup mode); NULL: cpu_profile.pid
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS cpu_profile_time ON cpu_profile (cap, time_ns);
CREATE INDEX IF NOT EXISTS cpu_profile_stack_seq ON cpu_profile_stack (cap, seq);
