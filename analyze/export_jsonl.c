/* export_jsonl.c — `export --format jsonl`: every record of a capture as one JSON
 * object per line, read straight from the file with the proto reader (not through
 * SQLite), so that it can follow a capture still being written (--follow).
 *
 * Payloads are rendered by one walker over protobuf-c's descriptors; a collector's
 * payload (CollectorPayload) is unpacked by the descriptor its part names
 * (an_load_payload.desc), so no collector is named here. The last line says how
 * reading ended. The format is in ptop-capture(5), "JSON lines".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/export.h"
#include "analyze/follow.h"
#include "analyze/load.h"
#include "analyze/output.h"
#include "analyze/part.h"
#include "proto/capture.h"
#include "proto/capture_internal.h"

static void json_base64(struct json *j, const uint8_t *p, size_t n)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;

	if (!s) {
		j->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = 0;
	json__string(j, s);
	free(s);
}

static void json_message(struct json *j, const ProtobufCMessage *m);

/* One value of field F at P. */
static void json_value(struct json *j, const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		json__int(j, *(const int32_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		json__uint(j, *(const uint32_t *)p);
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		json__int(j, *(const int64_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		json__uint(j, *(const uint64_t *)p);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
		json__real(j, *(const float *)p);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
		json__real(j, *(const double *)p);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		json__bool(j, *(const protobuf_c_boolean *)p);
		break;
	case PROTOBUF_C_TYPE_ENUM: {
		int v = *(const int *)p;
		const ProtobufCEnumValue *ev =
		    protobuf_c_enum_descriptor_get_value(f->descriptor, v);

		if (ev)
			json__string(j, ev->name); /* the enum's short name: "END_REASON_SIGNAL" */
		else
			json__int(j, v); /* a value this build does not know */
		break;
	}
	case PROTOBUF_C_TYPE_STRING:
		json__string(j, *(char *const *)p); /* strict UTF-8: U+FFFD for bad bytes */
		break;
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *b = p;

		json_base64(j, b->data, b->len);
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		const ProtobufCMessage *m = *(const ProtobufCMessage *const *)p;

		if (m)
			json_message(j, m);
		else
			json__null(j);
		break;
	}
	}
}

/* Whether the singular value of F at P is its default (proto3: then left out). */
static bool is_default(const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_ENUM:
		return *(const uint32_t *)p == 0;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return *(const uint64_t *)p == 0;
	case PROTOBUF_C_TYPE_FLOAT:
		return *(const float *)p == 0;
	case PROTOBUF_C_TYPE_DOUBLE:
		return *(const double *)p == 0;
	case PROTOBUF_C_TYPE_BOOL:
		return !*(const protobuf_c_boolean *)p;
	case PROTOBUF_C_TYPE_STRING: {
		const char *s = *(char *const *)p;

		return !s || !*s;
	}
	case PROTOBUF_C_TYPE_BYTES:
		return ((const ProtobufCBinaryData *)p)->len == 0;
	case PROTOBUF_C_TYPE_MESSAGE:
		return *(const ProtobufCMessage *const *)p == NULL;
	}
	return false;
}

static size_t value_size(const ProtobufCFieldDescriptor *f)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return 4;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return 8;
	case PROTOBUF_C_TYPE_FLOAT:
		return sizeof(float);
	case PROTOBUF_C_TYPE_DOUBLE:
		return sizeof(double);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_ENUM:
		return sizeof(int);
	case PROTOBUF_C_TYPE_STRING:
		return sizeof(char *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(ProtobufCMessage *);
	}
	return 0;
}

/* M as an object, by its descriptor: fields by their proto names; a proto3 field at
 * its default left out, as is a oneof member that is not the case set; a repeated
 * field as an array (left out when empty). */
static void json_message(struct json *j, const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *)m;

	json__begin_object(j);
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const void *p = base + f->offset;

		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + f->quantifier_offset);
			const char *a = *(const char *const *)p;

			if (!n)
				continue;
			json__key(j, f->name);
			json__begin_array(j);
			for (size_t k = 0; k < n; k++)
				json_value(j, f, a + k * value_size(f));
			json__end_array(j);
			continue;
		}
		if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			if (*(const uint32_t *)(base + f->quantifier_offset) != f->id)
				continue;
		} else if (f->label == PROTOBUF_C_LABEL_OPTIONAL &&
			   f->type != PROTOBUF_C_TYPE_MESSAGE &&
			   f->type != PROTOBUF_C_TYPE_STRING) {
			if (!*(const protobuf_c_boolean *)(base + f->quantifier_offset))
				continue;
		} else if (is_default(f, p)) {
			continue;
		}
		json__key(j, f->name);
		json_value(j, f, p);
	}
	json__end_object(j);
}

/* The descriptor a part gives for collector payload type TYPE, or NULL. */
static const ProtobufCMessageDescriptor *payload_desc(const char *type)
{
	if (!type)
		return NULL;
	for (const struct an_part *const *p = an_parts; *p; p++) {
		if (!(*p)->load || !(*p)->load->payloads)
			continue;
		for (const struct an_load_payload *x = (*p)->load->payloads; x->load; x++)
			if (x->desc && x->type && !strcmp(x->type, type) &&
			    !strcmp(x->desc->name, type))
				return x->desc;
	}
	return NULL;
}

/* One record as one line. 0 or -errno (writing failed). */
static int write_record(FILE *f, const Ptop__V1__Record *rec)
{
	const ProtobufCFieldDescriptor *kf = protobuf_c_message_descriptor_get_field(
	    &ptop__v1__record__descriptor, (unsigned)rec->kind_case);
	struct json j;
	uint64_t ns;

	json__init(&j, f, false);
	json__begin_object(&j);
	json__key(&j, "time_ns");
	if (capture_record_time(rec, &ns))
		json__uint(&j, ns);
	else
		json__null(&j);
	json__kv_string(&j, "kind", kf ? kf->name : "unknown");
	if (rec->kind_case == PTOP__V1__RECORD__KIND_EVENT && rec->event) {
		const Ptop__V1__Event *ev = rec->event;
		const ProtobufCFieldDescriptor *pf = protobuf_c_message_descriptor_get_field(
		    &ptop__v1__event__descriptor, (unsigned)ev->payload_case);
		const Ptop__V1__CollectorPayload *cp = ev->collector_payload;
		bool coll = ev->payload_case == PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD && cp;

		/* the category: the payload's name, or the collector's for a collector's */
		json__kv_string(&j, "category",
				coll ? cp->collector : pf ? pf->name : NULL);
		json__kv_int(&j, "pid", ev->pid);
		if (ev->tid)
			json__kv_int(&j, "tid", ev->tid);
		if (ev->interval_ns) {
			json__key(&j, "interval_ns");
			json__uint(&j, ev->interval_ns);
		}
		if (coll) {
			const ProtobufCMessageDescriptor *d = payload_desc(cp->type);
			ProtobufCMessage *m =
			    d ? protobuf_c_message_unpack(d, NULL, cp->data.len, cp->data.data)
			      : NULL;

			json__kv_string(&j, "type", cp->type);
			json__key(&j, "payload");
			if (m) {
				json_message(&j, m);
				protobuf_c_message_free_unpacked(m, NULL);
			} else {
				/* a type this build does not know, or bytes that do not decode:
				 * the payload as it came, its data in base64 */
				json_message(&j, &cp->base);
				json__kv_bool(&j, "undecoded", true);
			}
		} else if (pf) {
			const ProtobufCMessage *m =
			    *(const ProtobufCMessage *const *)((const char *)ev + pf->offset);

			json__kv_string(&j, "type", pf->descriptor
					    ? ((const ProtobufCMessageDescriptor *)pf->descriptor)->name
					    : NULL);
			json__key(&j, "payload");
			if (m)
				json_message(&j, m);
			else
				json__null(&j);
		} else {
			json__kv_null(&j, "payload");
		}
	} else if (kf && kf->type == PROTOBUF_C_TYPE_MESSAGE) {
		const ProtobufCMessage *m =
		    *(const ProtobufCMessage *const *)((const char *)rec + kf->offset);
		int32_t pid = 0;

		if (rec->kind_case == PTOP__V1__RECORD__KIND_MAPPING && rec->mapping)
			pid = rec->mapping->pid;
		if (pid)
			json__kv_int(&j, "pid", pid);
		json__kv_string(&j, "type",
				((const ProtobufCMessageDescriptor *)kf->descriptor)->name);
		json__key(&j, "payload");
		if (m)
			json_message(&j, m);
		else
			json__null(&j);
	}
	json__end_object(&j);
	return json__end(&j);
}

/* The last line: how reading ended. TRAILER, the trailer read (NULL: none). */
static int write_end(FILE *f, const struct capture_status *st, const Ptop__V1__CaptureTrailer *t)
{
	struct json j;

	json__init(&j, f, false);
	json__begin_object(&j);
	json__key(&j, "end");
	if (t) {
		const ProtobufCEnumValue *ev =
		    protobuf_c_enum_descriptor_get_value(&ptop__v1__end_reason__descriptor,
							 (int)t->reason);

		json__string(&j, "trailer");
		json__kv_string(&j, "reason", ev ? ev->name : "unknown");
		if (t->salvaged)
			json__kv_bool(&j, "salvaged", true);
		json__kv_string(&j, "message", "the recorder's trailer was read: complete");
	} else {
		switch (st->end) {
		case CAPTURE_END_CORRUPT:
			json__string(&j, "corrupt");
			break;
		case CAPTURE_END_IO:
			json__string(&j, "error");
			break;
		default: /* truncated, or a whole file with no trailer */
			json__string(&j, "cut");
			break;
		}
		json__kv_string(&j, "message",
				st->end == CAPTURE_END_CLEAN
				    ? "no trailer: the recorder did not finish the file"
				    : st->message);
		if (st->end == CAPTURE_END_TRUNCATED || st->end == CAPTURE_END_CORRUPT) {
			json__key(&j, "at_byte");
			json__uint(&j, st->at_byte);
		}
	}
	json__key(&j, "records");
	json__uint(&j, st->records);
	if (st->skipped) {
		json__key(&j, "skipped");
		json__uint(&j, st->skipped);
	}
	json__end_object(&j);
	return json__end(&j);
}

int export_jsonl(const char *path, const char *output, bool follow, uint64_t timeout_ns)
{
	struct capture_follow fl;
	Ptop__V1__CaptureTrailer *trailer = NULL;
	Ptop__V1__Record *rec, *trec = NULL;
	FILE *f = stdout;
	int rc = 0, k;

	rc = follow__open(&fl, path, follow, timeout_ns);
	if (rc) {
		export__say(rc == -EBADMSG ? "%s is not a ptop capture (no PTOPCAP magic frame)"
			    : rc == -ENOTSUP ? "%s: written by a newer format than this build reads"
					     : "cannot open %s: %s",
			    path, strerror(-rc));
		return rc == -ENOENT || rc == -EBADMSG || rc == -ENOTSUP ? ANALYZE_EXIT_USAGE
									 : analyze_exit_code(rc);
	}
	if (output) {
		int ofd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		f = ofd >= 0 ? fdopen(ofd, "w") : NULL;
		if (!f) {
			int e = errno;

			export__say("cannot write %s: %s", output, strerror(e));
			if (ofd >= 0)
				close(ofd);
			follow__close(&fl);
			return analyze_exit_code(-e);
		}
	}
	for (;;) {
		k = follow__next(&fl, &rec);
		if (k < 0) {
			rc = k;
			break;
		}
		if (k == FOLLOW_RECORD) {
			rc = write_record(f, rec);
			if (rec->kind_case == PTOP__V1__RECORD__KIND_TRAILER && rec->trailer) {
				/* the recorder's end: read no further, follow or not */
				trec = rec;
				trailer = rec->trailer;
			} else {
				ptop__v1__record__free_unpacked(rec, NULL);
			}
			if (rc || trailer)
				break;
			continue;
		}
		if (k == FOLLOW_END)
			break;
		/* following, at the end of what is there so far: out with what was
		 * written, then wait for more */
		if (fflush(f) == EOF) {
			rc = -EIO;
			break;
		}
		follow__nap();
	}
	if (!rc)
		rc = write_end(f, follow__status(&fl), trailer);
	if (trec)
		ptop__v1__record__free_unpacked(trec, NULL);
	if (f == stdout) {
		if ((fflush(f) || ferror(f)) && !rc)
			rc = -EIO;
	} else if (fclose(f) && !rc) {
		rc = -EIO;
	}
	if (rc == -EIO)
		export__say("writing %s failed", output ? output : "stdout");
	else if (rc)
		export__say("%s", strerror(-rc));
	follow__close(&fl);
	return analyze_exit_code(rc);
}
