-- schema.sql — the tls collector's tables (ptop-record --enable tls): libssl calls per
-- SSL connection per interval, when libssl was attached, and (only with --tls-bytes N:
-- SENSITIVE) the first plaintext bytes of each call.
--
-- collectors/tls/load.c fills them from TlsConn, TlsAttach and TlsData payloads.

CREATE TABLE IF NOT EXISTS tls_conn (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval (CLOCK_MONOTONIC ns)
	interval_ns INTEGER,          -- its length; NULL when unknown
	pid INTEGER,
	ssl INTEGER NOT NULL,         -- the SSL * pointer: the connection's key
	fd INTEGER,                   -- from SSL_set_fd; NULL: not seen
	write_calls INTEGER NOT NULL, -- SSL_write/SSL_write_ex calls returned in the interval
	write_ok INTEGER NOT NULL,    -- of them, that wrote bytes
	write_bytes INTEGER NOT NULL, -- plaintext bytes written
	write_lat_ns INTEGER NOT NULL,-- entry to return, summed over the calls
	write_lat_max_ns INTEGER NOT NULL, -- the longest since the connection was first seen
	read_calls INTEGER NOT NULL,  -- SSL_read/SSL_read_ex
	read_ok INTEGER NOT NULL,
	read_bytes INTEGER NOT NULL,
	read_lat_ns INTEGER NOT NULL,
	read_lat_max_ns INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS tls_attach (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- when the uprobes were attached
	pid INTEGER,
	library TEXT NOT NULL,        -- the libssl as the target maps it
	functions TEXT,               -- the functions probed
	at_start INTEGER NOT NULL     -- 1: mapped at the start; 0: mapped later (dlopen)
);

-- SENSITIVE: plaintext of the target's TLS connections, only with --tls-bytes N
CREATE TABLE IF NOT EXISTS tls_data (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- the call's return
	pid INTEGER,
	ssl INTEGER NOT NULL,
	fd INTEGER,                   -- NULL: not seen
	direction TEXT NOT NULL,      -- 'write' or 'read'
	length INTEGER NOT NULL,      -- the bytes the call moved
	data BLOB                     -- its first --tls-bytes of them
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS tls_conn_time ON tls_conn (cap, ssl, time_ns);
CREATE INDEX IF NOT EXISTS tls_data_time ON tls_data (cap, time_ns);
