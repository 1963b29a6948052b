/* payload.c — Event.collector_payload: a collector's own message, packed and unpacked
 * (see capture.h and CollectorPayload in proto/ptop.proto). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/capture.h"

int capture_payload__pack(Ptop__V1__Event *ev, Ptop__V1__CollectorPayload *cp,
			  const char *collector, const ProtobufCMessage *msg)
{
	size_t n = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf = malloc(n ? n : 1);

	if (!buf)
		return -ENOMEM;
	ptop__v1__collector_payload__init(cp);
	cp->collector = (char *)collector;
	cp->type = (char *)msg->descriptor->name;
	cp->data.len = protobuf_c_message_pack(msg, buf);
	cp->data.data = buf;
	ev->payload_case = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD;
	ev->collector_payload = cp;
	return 0;
}

void capture_payload__release(Ptop__V1__CollectorPayload *cp)
{
	free(cp->data.data);
	cp->data.data = NULL;
	cp->data.len = 0;
}

ProtobufCMessage *capture_payload__unpack(const Ptop__V1__Event *ev, const char *collector,
					  const ProtobufCMessageDescriptor *d)
{
	const Ptop__V1__CollectorPayload *cp = ev->collector_payload;
	ProtobufCMessage *m;

	if (ev->payload_case != PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD || !cp ||
	    !cp->collector || strcmp(cp->collector, collector)) {
		errno = ENOENT;
		return NULL;
	}
	if (cp->type && *cp->type && strcmp(cp->type, d->name)) {
		errno = EPROTO;
		return NULL;
	}
	m = protobuf_c_message_unpack(d, NULL, cp->data.len, cp->data.data);
	if (!m)
		errno = EBADMSG; /* protobuf-c says no more: a malformed message or no memory */
	return m;
}
