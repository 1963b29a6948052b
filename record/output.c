/* output.c — the capture's destination: a regular file made unnamed and named
 * once its header is written, or standard output (record/output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/output.h"

void record_output__init(struct record_output *out)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
}

static const char *kind_of(mode_t m)
{
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a fifo";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* What is at PATH now, as the recorder sees it: 0 when nothing (or, with
 * FORCE, a regular file it may replace), else -errno and a message. */
static int check_path(const char *path, bool force, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0; /* a missing directory is open's error */
		snprintf(err, errlen, "cannot create %s: %s: choose a writable path with -o", path,
			 strerror(errno));
		return -errno;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s is a symbolic link: ptop-record does not write through links "
			 "(even with --force); give the path of a regular file",
			 path);
		return -ELOOP;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory: give a file path, e.g. -o %s%srun.ptop",
			 path, path, path[strlen(path) - 1] == '/' ? "" : "/");
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "%s is %s, not a regular file: give a file path, or -o - to write "
			 "the capture to standard output",
			 path, kind_of(st.st_mode));
		return -EINVAL;
	}
	if (!force) {
		snprintf(err, errlen,
			 "%s already exists: use --force to replace it, or -o to choose another "
			 "name",
			 path);
		return -EEXIST;
	}
	return 0;
}

static int open_stdout(struct record_output *out, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	out->name = "standard output";
	if (fstat(STDOUT_FILENO, &st) < 0) {
		snprintf(err, errlen, "-o -: standard output is closed: redirect it to a file or "
				      "a pipe");
		return -EBADF;
	}
	if (isatty(STDOUT_FILENO)) {
		snprintf(err, errlen,
			 "-o -: standard output is a terminal, and a capture is binary: redirect "
			 "it (ptop-record -o - ... > run.ptop, or | ssh box 'cat > run.ptop'), "
			 "or give a file name");
		return -ENOTTY;
	}
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		snprintf(err, errlen, "-o -: cannot use standard output: %s", strerror(errno));
		return -errno;
	}
	/* from now on descriptor 1 is standard error: no stray output (ours, or a
	 * launched command's) can reach the capture stream */
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0) {
			snprintf(err, errlen, "-o -: cannot detach standard output: %s",
				 strerror(errno));
			if (null >= 0)
				close(null);
			close(fd);
			return -EIO;
		}
		close(null);
	}
	out->fd = fd;
	out->to_stdout = true;
	return 0;
}

/* DIR and BASE of PATH into D and B (each PATH_MAX). */
static int split_path(const char *path, char *d, char *b)
{
	const char *slash = strrchr(path, '/');

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!slash) {
		snprintf(d, PATH_MAX, ".");
		snprintf(b, PATH_MAX, "%s", path);
	} else {
		snprintf(d, PATH_MAX, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		snprintf(b, PATH_MAX, "%s", slash + 1);
	}
	return 0;
}

int record_output__open(struct record_output *out, const char *path, bool force, char *err,
			size_t errlen)
{
	char dir[PATH_MAX], base[PATH_MAX];
	int fd = -1, rc;

	record_output__init(out);
	out->path = path;
	out->name = path;
	out->force = force;
	if (!path || !path[0]) {
		snprintf(err, errlen, "-o needs a file path (or - for standard output)");
		return -EINVAL;
	}
	if (strcmp(path, "-") == 0)
		return open_stdout(out, err, errlen);
	rc = check_path(path, force, err, errlen);
	if (rc)
		return rc;
	rc = split_path(path, dir, base);
	if (rc) {
		snprintf(err, errlen, "cannot create %s: %s: choose a shorter path with -o", path,
			 strerror(-rc));
		return rc;
	}
	if (!base[0]) {
		snprintf(err, errlen, "%s names a directory: give a file path, e.g. -o %srun.ptop",
			 path, path);
		return -EISDIR;
	}
	/* unnamed until its header is written; the mode is set again below, whatever
	 * the umask */
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* no O_TMPFILE on this filesystem: a hidden name beside PATH */
		if (snprintf(out->tmp, sizeof(out->tmp), "%s/.%s.XXXXXX", dir, base) >=
		    (int)sizeof(out->tmp)) {
			out->tmp[0] = '\0';
			errno = ENAMETOOLONG;
		} else {
			fd = mkostemp(out->tmp, O_CLOEXEC);
			if (fd < 0)
				out->tmp[0] = '\0';
		}
	}
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot create %s: %s: choose a writable path with -o", path,
			 strerror(errno));
		return rc;
	}
	out->fd = fd;
	if (fchmod(fd, 0600) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot create %s: %s: choose a writable path with -o", path,
			 strerror(errno));
		return rc;
	}
	return 0;
}

int record_output__writer_fd(const struct record_output *out)
{
	int fd = fcntl(out->fd, F_DUPFD_CLOEXEC, 3);

	return fd < 0 ? -errno : fd;
}

/* Give the unnamed file FD the name TO. 0 or -errno (EEXIST when TO exists). */
static int link_unnamed(int fd, const char *to)
{
	char proc[64];

	if (linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM && errno != EINVAL)
		return -errno;
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) == 0 ? 0 : -errno;
}

/* A hidden name for the unnamed file, beside PATH, into out->tmp. */
static int link_hidden(struct record_output *out)
{
	char dir[PATH_MAX], base[PATH_MAX];
	struct timespec ts;
	int i, rc = split_path(out->path, dir, base);

	if (rc)
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (i = 0; i < 100; i++) {
		if (snprintf(out->tmp, sizeof(out->tmp), "%s/.%s.%d.%lx", dir, base, (int)getpid(),
			     (unsigned long)ts.tv_nsec + (unsigned long)i) >= (int)sizeof(out->tmp)) {
			out->tmp[0] = '\0';
			return -ENAMETOOLONG;
		}
		rc = link_unnamed(out->fd, out->tmp);
		if (rc != -EEXIST)
			break;
	}
	if (rc)
		out->tmp[0] = '\0';
	return rc;
}

int record_output__publish(struct record_output *out, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	if (out->published)
		return 0;
	if (out->to_stdout) {
		close(out->fd); /* the writer has its own descriptor */
		out->fd = -1;
		out->published = true;
		return 0;
	}
	if (fstat(out->fd, &st) < 0) {
		rc = -errno;
		goto fail;
	}
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	if (!out->force) {
		/* link(2) never replaces: something that appeared at PATH meanwhile stays */
		rc = out->tmp[0] ? (link(out->tmp, out->path) ? -errno : 0) :
				   link_unnamed(out->fd, out->path);
		if (rc == -EEXIST) {
			check_path(out->path, false, err, errlen);
			return rc;
		}
		if (rc)
			goto fail;
		if (out->tmp[0]) {
			unlink(out->tmp);
			out->tmp[0] = '\0';
		}
	} else {
		if (!out->tmp[0]) {
			rc = link_hidden(out);
			if (rc)
				goto fail;
		}
		/* rename replaces PATH itself, never what a link points to; refuse
		 * anything at PATH but a regular file (checked again, just before) */
		rc = check_path(out->path, true, err, errlen);
		if (rc)
			return rc;
		if (rename(out->tmp, out->path) < 0) {
			rc = -errno;
			goto fail;
		}
		out->tmp[0] = '\0';
	}
	/* out->fd stays open until record_output__close: while it is, no other
	 * file can get our inode number, so dev/ino tell our file for certain */
	out->published = true;
	return 0;

fail:
	snprintf(err, errlen, "cannot create %s: %s: choose a writable path with -o", out->path,
		 strerror(-rc));
	return rc;
}

/* Remove NAME if it is still the regular file DEV/INO. */
static void remove_ours(const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	if (lstat(name, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == dev && st.st_ino == ino)
		unlink(name);
}

void record_output__discard(struct record_output *out)
{
	struct stat st;

	if (out->to_stdout)
		return;
	if (out->published) {
		remove_ours(out->path, out->dev, out->ino);
		return;
	}
	if (out->tmp[0] && out->fd >= 0 && fstat(out->fd, &st) == 0)
		remove_ours(out->tmp, st.st_dev, st.st_ino);
	out->tmp[0] = '\0';
}

void record_output__close(struct record_output *out)
{
	if (out->tmp[0])
		record_output__discard(out);
	if (out->fd >= 0)
		close(out->fd);
	out->fd = -1;
}
