-- schema.sql — the fds collector's tables: fd_sample (the fd table by type, one row per
-- interval) and fd_open (the table itself as last read: one row per fd).
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
	truncated INTEGER NOT NULL    -- 1: the table had more fds than the recorder keeps
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS fd_sample_time ON fd_sample (cap, time_ns);
CREATE INDEX IF NOT EXISTS fd_open_fd ON fd_open (cap, pid, fd);
