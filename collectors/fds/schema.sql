-- schema.sql — the fds collector's tables: fd_sample (the fd table by type, one row per
-- interval), fd_open (the table itself as last read: one row per fd), and with --fd-stacks
-- fd_op (opens and closes per syscall per interval) and fd_site (the opening sites).
--
-- collectors/fds/load.c fills them. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS fd_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- when /proc/PID/fd was read (end of the interval)
	interval_ns INTEGER,          -- the interval's length; NULL when unknown
	pid INTEGER,
	total INTEGER NOT NULL,       -- open fds; the types below sum to it
	file INTEGER NOT NULL,
	socket INTEGER NOT NULL,
	pipe INTEGER NOT NULL,
	eventfd INTEGER NOT NULL,
	epoll INTEGER NOT NULL,
	timerfd INTEGER NOT NULL,
	signalfd INTEGER NOT NULL,
	anon_inode INTEGER NOT NULL,
	other INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS fd_open (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- when the table was read (the last read of the recording)
	pid INTEGER,
	fd INTEGER NOT NULL,
	type TEXT NOT NULL,           -- file, socket, pipe, eventfd, epoll, timerfd, signalfd,
	                              -- anon_inode, other
	target TEXT NOT NULL,         -- the readlink of /proc/PID/fd/FD
	truncated INTEGER NOT NULL,   -- 1: the table had more fds than the recorder keeps
	probe INTEGER NOT NULL DEFAULT 0 -- 1: ptop's own fd (the preload memfd, the start
	                              -- pipe): not in fd_sample's counts
);

-- --fd-stacks (the eBPF lane): per interval, the fds each syscall opened and closed; only
-- syscalls with a non-zero figure have a row.
CREATE TABLE IF NOT EXISTS fd_op (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	pid INTEGER,
	syscall TEXT NOT NULL,        -- openat, socket, pipe2, dup2, close, ...
	opened INTEGER NOT NULL,      -- new fds (two for a pipe or a socketpair)
	failed INTEGER NOT NULL,      -- calls that returned an error
	closed INTEGER NOT NULL,      -- fds closed (close_range: calls)
	emfile INTEGER NOT NULL       -- failures with EMFILE or ENFILE
);

-- --fd-stacks: the opening sites at the end of the recording.
CREATE TABLE IF NOT EXISTS fd_site (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	stack_id INTEGER,             -- the user stack (stack.id); NULL when not kept
	opened INTEGER NOT NULL,      -- fds opened there over the recording
	live INTEGER NOT NULL,        -- of them, still open at the end
	closed_unseen INTEGER         -- of them, closed by the kernel without a close call
	                              -- (exec, close_range): NULL in older captures
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS fd_op_time ON fd_op (cap, time_ns);
CREATE INDEX IF NOT EXISTS fd_sample_time ON fd_sample (cap, time_ns);
CREATE INDEX IF NOT EXISTS fd_open_fd ON fd_open (cap, pid, fd);
