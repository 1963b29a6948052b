/* mark.h — what the mark collector's kernel side and recorder share. */
#ifndef PTOP_MARK_H
#define PTOP_MARK_H

#define MARK_MAX 8 /* --mark NAME=FUNC given at most this many times */

#endif
