/* version.h — the build's version strings (build/version.c, made by the Makefile). */
#ifndef PTOP_VERSION_H
#define PTOP_VERSION_H

extern const char ptop_version[];    /* "0.1.0" */
extern const char ptop_commit[];     /* short git commit, or "unknown" */
extern const char ptop_build_date[]; /* ISO 8601, UTC */

#endif
