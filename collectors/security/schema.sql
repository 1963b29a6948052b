-- schema.sql — the security collector's tables: sec_exec_mem (memory the target made
-- executable: one row per mmap/mprotect that asked for PROT_EXEC), sec_ptrace (ptrace
-- attaches to or by the target), sec_setid_exec (its execs that changed its credentials),
-- sec_cap_denied (failed capability checks per interval, where the kernel can tell).
--
-- collectors/security/load.c fills them. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS sec_exec_mem (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- the call's exit
	pid INTEGER,
	tid INTEGER,
	call TEXT NOT NULL,           -- mmap, mprotect (pkey_mprotect counts as mprotect)
	addr INTEGER NOT NULL,        -- the address asked for (mmap: the hint)
	len INTEGER NOT NULL,
	prot INTEGER NOT NULL,        -- PROT_* asked for (PROT_EXEC always)
	wx INTEGER NOT NULL,          -- 1: writable and executable at once (W^X broken)
	flags INTEGER,                -- mmap: MAP_*; NULL for mprotect
	fd INTEGER,                   -- mmap: its fd; NULL for none or mprotect
	ret INTEGER NOT NULL,         -- the result: the address (mmap), 0, or -errno
	ok INTEGER NOT NULL,          -- 1: the call succeeded
	vm_start INTEGER,             -- the VMA at the address after the call; NULL: not read
	vm_end INTEGER,
	backing TEXT,                 -- its file's path, or 'anonymous'; NULL: not read
	name_only INTEGER NOT NULL,   -- 1: backing is the file's name only (path not found)
	inode INTEGER,
	stack_id INTEGER,             -- the user stack of the call (stack.id); NULL: none
	comm TEXT
);

CREATE TABLE IF NOT EXISTS sec_ptrace (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	tracer_pid INTEGER NOT NULL,
	tracer_tid INTEGER NOT NULL,
	tracer_comm TEXT,
	tracee INTEGER NOT NULL,      -- the pid the call named
	request TEXT NOT NULL,        -- attach, seize
	ret INTEGER NOT NULL,         -- 0 or -errno
	by_target INTEGER NOT NULL,   -- 1: the tracer is the target
	stack_id INTEGER              -- the tracer's user stack (by the target only)
);

CREATE TABLE IF NOT EXISTS sec_setid_exec (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	tid INTEGER,
	path TEXT NOT NULL,           -- the file exec'd (first 63 bytes)
	comm TEXT,
	uid INTEGER NOT NULL, euid INTEGER NOT NULL,
	gid INTEGER NOT NULL, egid INTEGER NOT NULL,
	cap_permitted INTEGER NOT NULL,
	cap_effective INTEGER NOT NULL,
	secureexec INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS sec_cap_denied (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	pid INTEGER,
	capability INTEGER NOT NULL,  -- CAP_* number (63: any beyond 62)
	name TEXT NOT NULL,           -- sys_admin, ...; '' when unknown
	failed INTEGER NOT NULL
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS sec_exec_mem_time ON sec_exec_mem (cap, time_ns);
