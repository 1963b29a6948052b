-- schema.sql — the syscalls collector's tables, views and indexes: syscall_stat,
-- one row per syscall and interval, and the views syscall_hist and syscalls.
--
-- collectors/syscalls/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

CREATE TABLE IF NOT EXISTS syscall_stat (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	interval_ns INTEGER,
	pid INTEGER,
	nr INTEGER NOT NULL,
	name TEXT NOT NULL,
	count INTEGER NOT NULL,       -- entries in the interval
	completed INTEGER NOT NULL,   -- exits (latency measured)
	errors INTEGER NOT NULL,
	total_ns INTEGER NOT NULL,    -- summed latency of completed calls
	unmatched INTEGER,            -- exits with no entry stamp (no latency)
	latency_hist TEXT             -- JSON array: element i counts latencies in [2^i, 2^(i+1)) ns,
	                              -- trailing zeros cut; NULL: no bucket counted (see syscall_hist)
);

-- The latency histograms as rows: one per non-zero bucket of a syscall_stat row.
-- They are stored in syscall_stat.latency_hist (one row per syscall and interval
-- instead of one per bucket: a sixth of the rows, no index of their own).
CREATE VIEW IF NOT EXISTS syscall_hist (cap, time_ns, pid, nr, bucket, count) AS
	SELECT s.cap, s.time_ns, s.pid, s.nr, j.key, j.value
	FROM syscall_stat s, json_each(s.latency_hist) j
	WHERE j.value != 0;

-- INSERT INTO syscall_hist adds COUNT to bucket BUCKET of the syscall_stat row(s)
-- with the same cap, time_ns, pid and nr, which must be inserted first.
CREATE TRIGGER IF NOT EXISTS syscall_hist_insert INSTEAD OF INSERT ON syscall_hist
BEGIN
	SELECT RAISE(ABORT, 'syscall_hist: bucket must be 0 to 63')
	WHERE NEW.bucket IS NULL OR NEW.bucket < 0 OR NEW.bucket > 63;
	SELECT RAISE(ABORT, 'syscall_hist: insert the syscall_stat row (cap, time_ns, pid, nr) first')
	WHERE NOT EXISTS (SELECT 1 FROM syscall_stat WHERE cap = NEW.cap AND
			  time_ns = NEW.time_ns AND pid IS NEW.pid AND nr = NEW.nr);
	UPDATE syscall_stat SET latency_hist = CASE
		WHEN NEW.bucket < json_array_length(coalesce(latency_hist, '[]'))
		THEN json_replace(latency_hist, '$[' || NEW.bucket || ']',
				  json_extract(latency_hist, '$[' || NEW.bucket || ']') + NEW.count)
		ELSE '[' || substr(coalesce(latency_hist, '[]'), 2,
				   length(coalesce(latency_hist, '[]')) - 2) ||
		     CASE WHEN json_array_length(coalesce(latency_hist, '[]')) > 0 THEN ',' ELSE '' END ||
		     replace(hex(zeroblob(NEW.bucket - json_array_length(coalesce(latency_hist, '[]')))),
			     '00', '0,') || NEW.count || ']'
		END
	WHERE cap = NEW.cap AND time_ns = NEW.time_ns AND pid IS NEW.pid AND nr = NEW.nr;
END;

-- The view with capture_id and t_s: seconds since the capture started.
CREATE VIEW IF NOT EXISTS syscalls AS
	SELECT c.capture_id, s.*, (s.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM syscall_stat s JOIN capture c USING (cap);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS syscall_stat_time ON syscall_stat (cap, time_ns);
