// The C surface Ward needs from GNU readline and history, and what the wipe needs beside them
// (glibc's malloc_usable_size, explicit_bzero). The other system calls are in CWardSystem.
#ifndef WARD_CREADLINE_SHIM_H
#define WARD_CREADLINE_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <malloc.h>
#include <readline/readline.h>
#include <readline/history.h>

/* Internals that libreadline.so.8 exports but no public header declares (rlprivate.h).
   The wipe needs them: docs/readline.md §3. */
extern int _rl_last_command_was_kill;
extern HIST_ENTRY *_rl_saved_line_for_history;

/* rl_message is variadic, which Swift cannot call. */
static inline int ward_rl_message(const char *text) { return rl_message("%s", text); }

/* ---- readline's globals, touched only here: Swift 6 refuses unsynchronised C globals, and the
   recipes below, explained in docs/readline.md, were written and checked in C. ---- */

/* Before the first handler install: no signal handlers of readline's own, input only from ours (§1, §2). */
static inline void ward_rl_configure(rl_getc_func_t *getc_fn, rl_hook_func_t *available_fn,
                                     rl_completion_func_t *complete_fn) {
    rl_readline_name = "ward";
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    /* With no handlers of its own to set, readline's per-call rl_set_signals() is one
       sigprocmask system call a key for nothing; "persistent" calls it at install only. */
    rl_persistent_signal_handlers = 1;
    rl_change_environment = 0;
    rl_getc_function = getc_fn;
    rl_input_available_hook = available_fn;
    rl_attempted_completion_function = complete_fn;
}

/* Completion never falls back to file names. */
static inline void ward_rl_completion_over(void) { rl_attempted_completion_over = 1; }

/* Who lists the candidates when Tab finds several: Ward's function shows an MRN with the
   patient's name beside it, and hands other lists back to readline's own display. */
static inline void ward_rl_set_completion_display(rl_compdisp_func_t *display) {
    rl_completion_display_matches_hook = display;
}

/* Text on readline's own output stream, in order with what readline wrote there. */
static inline void ward_rl_print(const char *text) {
    fputs(text, rl_outstream ? rl_outstream : stdout);
    fflush(rl_outstream ? rl_outstream : stdout);
}

static inline const char *ward_rl_line_buffer(void) { return rl_line_buffer; }

/* The length of the line being edited, in bytes. */
static inline int ward_rl_end(void) { return rl_end; }

/* Who redisplays: Ward's function holds redisplays back while a burst of typed text is taken;
   NULL puts readline's own back. Readline treats any other function as a custom display
   (CUSTOM_REDISPLAY_FUNC: a resize then skips its re-wrap), so ours is in place only meanwhile. */
static inline void ward_rl_set_redisplay(rl_voidfunc_t *f) { rl_redisplay_function = f ? f : rl_redisplay; }

static inline void ward_rl_scrub_line_buffer(void) {
    if (rl_line_buffer) explicit_bzero(rl_line_buffer, malloc_usable_size(rl_line_buffer));
    rl_point = rl_end = rl_mark = 0;
}

/* Ctrl-C: cancel the line, fresh prompt; _rl_handle_signal's order (§2). */
static inline void ward_rl_cancel_line(void) {
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_point = rl_end;
    rl_redisplay();
    rl_echo_signal_char(SIGINT);
    rl_crlf();
    ward_rl_scrub_line_buffer();
    rl_on_new_line();
    rl_redisplay();
}

/* A line too long to take: drop it like Ctrl-C, say why on a line of its own, fresh prompt. */
static inline void ward_rl_refuse_line(const char *message) {
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_point = rl_end;
    rl_redisplay();
    rl_crlf();
    fputs(message, rl_outstream);
    rl_crlf();
    fflush(rl_outstream);
    ward_rl_scrub_line_buffer();
    rl_on_new_line();
    rl_redisplay();
}

static inline void ward_scrub_undo(UNDO_LIST *u) {
    for (; u; u = u->next) if (u->text) explicit_bzero(u->text, strlen(u->text));
}

/* Everything readline keeps of what was typed, in the order that passed every test here (§3):
   history, saved line, undo list, line state, search strings, kill ring, message and display
   buffers, the line buffer. `feed` queues bytes and runs rl_callback_read_char on them; a handler
   must be installed. `junk_len` = longest line seen + 64. */
static inline void ward_rl_wipe(size_t junk_len, void (*feed)(const char *)) {
    rl_callback_sigcleanup();
    HIST_ENTRY **list = history_list();
    int n = history_length;
    for (int i = 0; list && i < n && list[i]; i++) {
        if (list[i]->line) explicit_bzero(list[i]->line, strlen(list[i]->line));
        ward_scrub_undo((UNDO_LIST *)list[i]->data);
    }
    if (_rl_saved_line_for_history) {
        if (_rl_saved_line_for_history->line)
            explicit_bzero(_rl_saved_line_for_history->line, strlen(_rl_saved_line_for_history->line));
        ward_scrub_undo((UNDO_LIST *)_rl_saved_line_for_history->data);
        rl_maybe_unsave_line();
    }
    ward_scrub_undo(rl_undo_list);
    rl_free_undo_list();                   /* before any programmatic edit: crash note in §3 */
    rl_free_line_state();
    rl_clear_history();
    for (int i = 0; list && i < n; i++) list[i] = NULL;   /* i-search walks to NULL: crash note */

    rl_reverse_search_history(1, 0); feed("\033");       /* replaces last_isearch_string */
    rl_noninc_reverse_search(1, 0); feed("z\r");         /* replaces noninc_search_string */
    for (int i = 0; i < 12; i++) {                       /* evicts every kill-ring slot */
        rl_insert_text("z");
        _rl_last_command_was_kill = 0;
        rl_kill_text(0, rl_end);
    }
    _rl_last_command_was_kill = 0;
    rl_free_undo_list();

    char *junk = malloc(junk_len + 1);
    if (junk) {
        memset(junk, 'z', junk_len); junk[junk_len] = 0;
        rl_message("%s", junk); rl_message("%s", junk); rl_clear_message();
        rl_replace_line(junk, 0); rl_redisplay(); rl_redisplay();
        free(junk);
    }
    rl_replace_line("", 1);
    rl_redisplay();
    ward_rl_scrub_line_buffer();
    rl_free_undo_list();
}

#endif
