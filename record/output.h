/* output.h — where ptop-record writes its capture: a new regular file, made
 * safely (never through a symlink, never into a device or fifo, never seen
 * half-made), or standard output as a stream (-o -).
 *
 * The file is made unnamed first (O_TMPFILE in the target directory; where the
 * filesystem has none, a hidden ".NAME.XXXXXX" beside it) and gets its name
 * only by record_output__publish, once its header is written: a file at PATH is
 * always a capture that ptop-analyze info and salvage read, whenever the
 * recorder is killed. Without --force an existing PATH is refused; with it only
 * a regular file is replaced (by rename, so a file someone still reads is not
 * cut under them).
 */
#ifndef PTOP_RECORD_OUTPUT_H
#define PTOP_RECORD_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct record_output {
	int fd;               /* the capture's file (kept open: its inode stays ours) or
			       * standard output until published; -1 when none */
	const char *path;     /* as given ("-" for standard output); not owned */
	const char *name;     /* for messages: PATH, or "standard output" */
	char tmp[PATH_MAX];   /* the hidden temporary name while it exists, else "" */
	bool to_stdout;
	bool force;           /* replace an existing regular file */
	bool published;       /* PATH names our file */
	dev_t dev;            /* our file, so that only it is ever removed */
	ino_t ino;
};

/* Prepare OUT to write the capture to PATH ("-": standard output). Nothing
 * appears at PATH yet. For "-", standard output must not be a terminal; the
 * capture then goes to a private copy of it and descriptor 1 is pointed at
 * standard error, so that nothing else (our messages, a launched command's
 * output) can reach the stream. Returns 0, or -errno with a one-line message
 * in ERR saying what to do: -EEXIST (PATH exists, no FORCE), -ELOOP (a
 * symlink), -EISDIR (a directory), -EINVAL (a device, fifo or socket; an empty
 * path), -ENOTTY (standard output is a terminal), errors of open(2). Call
 * record_output__close in every case. */
int record_output__open(struct record_output *out, const char *path, bool force, char *err,
			size_t errlen);

/* A new descriptor for the capture writer (close-on-exec, the caller owns it),
 * or -errno. */
int record_output__writer_fd(const struct record_output *out);

/* Give the file its name PATH (for standard output: nothing to do), after the
 * header reached it. Without force, an entry that appeared at PATH meanwhile is
 * not replaced (-EEXIST); with force, only a regular file is (-ELOOP, -EISDIR,
 * -EINVAL otherwise). Returns 0 or -errno with a message in ERR. */
int record_output__publish(struct record_output *out, char *err, size_t errlen);

/* The recording did not start: remove what this recorder created (the
 * temporary file, or PATH while it still is our file), never anything else. */
void record_output__discard(struct record_output *out);

/* Close what OUT still holds (and remove a temporary name left). Safe on a
 * zeroed OUT after record_output__init. */
void record_output__close(struct record_output *out);

/* An OUT holding nothing, for record_output__close. */
void record_output__init(struct record_output *out);

#endif
