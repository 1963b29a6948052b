-- schema.sql — the proccontext collector's tables: proc_context and namespace.
--
-- collectors/proccontext/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

CREATE TABLE IF NOT EXISTS proc_context (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	ppid INTEGER,
	comm TEXT,
	uid INTEGER,
	euid INTEGER,
	gid INTEGER,
	egid INTEGER,
	cgroup_path TEXT,
	cgroup_id INTEGER,
	container_id TEXT,
	nspid TEXT                    -- JSON array, outermost namespace first
);

CREATE TABLE IF NOT EXISTS namespace (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	type TEXT NOT NULL,
	inode INTEGER NOT NULL
);
