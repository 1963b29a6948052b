/* salvage.c — the `salvage` command: a repaired copy of a cut-short capture (capture__salvage) */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/output.h"
#include "proto/capture.h"
#include "proto/names.h"

int cmd_salvage(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct capture_status status;
	const char *in, *out = NULL;
	char *def = NULL, c1[32], c2[32];
	struct stat st;
	int c, rc, code = ANALYZE_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			analyze_cmd_help("salvage", stdout);
			return ANALYZE_EXIT_OK;
		case ':':
			return analyze_usage("salvage", "%s needs a value", argv[optind - 1]);
		default:
			return analyze_usage("salvage", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return analyze_usage("salvage",
				     argc == optind ? "which capture FILE?" : "one FILE at a time");
	in = argv[optind];
	if (!out) {
		if (asprintf(&def, "%s.salvaged.ptop", in) < 0) {
			fprintf(stderr, "ptop-analyze salvage: out of memory\n");
			return ANALYZE_EXIT_INTERNAL;
		}
		out = def;
	}
	memset(&status, 0, sizeof(status));
	rc = capture__salvage(in, out, &status);
	if (rc == -EEXIST) {
		fprintf(stderr,
			"ptop-analyze salvage: %s already exists: remove it or choose "
			"another name with -o\n",
			out);
		code = ANALYZE_EXIT_USAGE;
		goto cleanup;
	}
	if (rc) {
		const char *hint = "";

		if (rc == -EBADMSG)
			hint = ": give a .ptop file written by ptop-record";
		else if (!strncmp(status.message, "cannot create ", 14) ||
			 !strncmp(status.message, "cannot write ", 13))
			hint = ": choose a writable place with -o FILE (or free space there)";
		if (status.message[0])
			fprintf(stderr, "ptop-analyze salvage: %s%s\n", status.message, hint);
		else
			fprintf(stderr, "ptop-analyze salvage: %s: %s\n", in, strerror(-rc));
		code = analyze_exit_code(rc);
		goto cleanup;
	}
	if (!status.frames) { /* a corrupt capture with nothing to read is an input error */
		unlink(out);  /* ours: capture__salvage created it with O_EXCL */
		fprintf(stderr,
			"ptop-analyze salvage: no complete frame could be recovered from "
			"%s (%s); nothing written\n",
			in, status.message[0] ? status.message : capture_end_name(status.end));
		code = ANALYZE_EXIT_USAGE;
		goto cleanup;
	}
	printf("read %s: %s frames, %s records; ", in, fmt_count(c1, sizeof(c1), status.frames),
	       fmt_count(c2, sizeof(c2), status.records));
	if (status.end == CAPTURE_END_CLEAN)
		printf("the file was read to its end%s\n",
		       status.has_index ? " (it already had a time index)" : "");
	else
		printf("reading stopped (%s) at byte %" PRIu64 " of %" PRIu64 ": %s\n",
		       capture_end_name(status.end), status.at_byte, status.file_size,
		       status.message[0] ? status.message : "no detail");
	if (stat(out, &st) == 0)
		printf("wrote %s (%s): every complete frame, a trailer (salvaged unless the "
		       "capture had one) and a time index\n",
		       out, fmt_bytes(c1, sizeof(c1), (uint64_t)st.st_size));
	else
		printf("wrote %s\n", out);
cleanup:
	free(def);
	return code;
}
