/* replay.h — the `replay` command and the terminal layer it drives.
 *
 * cmd_replay (replay.c) parses the options, opens the capture and either prints one frame as text
 * (--dump) or runs the live viewer: the key loop over replay_term.c, the only file that uses
 * curses. replay_dump renders one frame to a stream, for the command and for tests.
 */
#ifndef PTOP_REPLAY_H
#define PTOP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/replay_grid.h"
#include "analyze/replay_model.h"

/* `ptop-analyze replay`: returns the exit code. */
int cmd_replay(int argc, char **argv);

/* Render the frame of tab TAB (index into replay__tabs()) at AT_NS in a W x H grid and write it to
 * OUT as text. 0 or -errno (-ENOMEM, -EINVAL for a bad size, -EIO when writing failed). */
int replay_dump(struct replay_model *m, int tab, int64_t at_ns, int w, int h, FILE *out);

/* ------------------------------------------------------------------ terminal (replay_term.c) */

struct term;

/* Take over the terminal: UTF-8 locale, curses screen, keypad, no echo, colours (256 or 16,
 * none when NO_COLOR is set or the terminal has none), SIGINT/SIGTERM caught so the terminal is
 * restored. NULL with a reason in ERR when the terminal cannot be used. */
struct term *term__open(char *err, size_t errlen);

/* Restore the terminal (also called at exit if the program ends another way). NULL is fine. */
void term__close(struct term *t);

/* The terminal's size now. */
void term__size(struct term *t, int *w, int *h);

/* Wait up to TIMEOUT_MS for a key: an enum replay_key code or a character; 0 on timeout or a
 * signal; RK_RESIZE when the terminal was resized. */
int term__key(struct term *t, int timeout_ms);

/* True once SIGINT or SIGTERM arrived. */
bool term__interrupted(void);

/* Paint G on the screen (it must be the terminal's size) and refresh. */
void term__paint(struct term *t, const struct grid *g);

#endif
