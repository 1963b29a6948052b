-- schema.sql — the toy collector's table: toy_sample, one row per interval.
--
-- tests/toy/load.c fills it. The build appends this file to schema/schema.sql in
-- collectors.def order; the part after the line "-- @@ indexes @@" runs after the data
-- is loaded. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS toy_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval (CLOCK_MONOTONIC ns)
	interval_ns INTEGER,          -- its length; NULL when unknown
	pid INTEGER,
	count INTEGER NOT NULL,       -- minor faults over the interval, times scale
	total INTEGER NOT NULL,       -- /proc/PID/stat minflt at the end of it (unscaled)
	scale INTEGER NOT NULL        -- --toy-scale
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS toy_sample_time ON toy_sample (cap, time_ns);
