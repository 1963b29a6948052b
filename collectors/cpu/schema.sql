-- schema.sql — the cpu collector's tables, views and indexes: cpu_sample, one row
-- per interval, and the view cpu.
--
-- collectors/cpu/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

CREATE TABLE IF NOT EXISTS cpu_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	pid INTEGER,
	oncpu_ns INTEGER,             -- eBPF lane (sched_switch); NULL if it did not run
	switches INTEGER,
	user_ns INTEGER,              -- /proc lane (utime/stime deltas); NULL if unread
	system_ns INTEGER,
	threads INTEGER,
	voluntary_switches INTEGER,
	involuntary_switches INTEGER,
	user_ticks_total INTEGER,     -- cumulative utime/stime, clock ticks; NULL if unread
	system_ticks_total INTEGER,
	cg_usage_ns INTEGER,          -- cgroup lane (cpu.stat deltas, cgroup mode); NULL if unread
	cg_user_ns INTEGER,
	cg_system_ns INTEGER,
	cg_periods INTEGER,           -- cpu.max enforcement: NULL unless the v2 cpu controller
	cg_throttled_periods INTEGER, -- is enabled for the cgroup
	cg_throttled_ns INTEGER
);

-- The view with capture_id and t_s: seconds since the capture started.
CREATE VIEW IF NOT EXISTS cpu AS
	SELECT c.capture_id, s.*, (s.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM cpu_sample s JOIN capture c USING (cap);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS cpu_sample_time ON cpu_sample (cap, time_ns);
