#ifndef PHOTOPICK_DECODE_CHANNEL_H
#define PHOTOPICK_DECODE_CHANNEL_H

#include <stddef.h>
#include <sys/types.h>

/* The decode worker's channel: one message and at most one file descriptor per call, over a
 * Unix stream socket (SCM_RIGHTS). The CMSG macros cannot be imported into Swift, hence C. */

/* Sends `length` bytes and, when `fd` >= 0, the descriptor with them. Returns 0, or -1 with
 * errno set. Retries on EINTR; never raises SIGPIPE (MSG_NOSIGNAL). */
int photopick_channel_send(int socket, const void *data, size_t length, int fd);

/* Receives exactly `length` bytes and the descriptor sent with their first part (-1 when none
 * came) into `fd`. Returns the bytes received: `length`, or 0 when the peer has gone (end of
 * stream before anything came), or -1 with errno set (EPROTO when the peer stopped halfway).
 * A descriptor received with a failed call is closed. */
ssize_t photopick_channel_receive(int socket, void *data, size_t length, int *fd);

/* The most descriptors one message carries (a metadata worker's batch of files). */
#define PHOTOPICK_CHANNEL_MAX_FDS 64

/* As `photopick_channel_send`, with `count` descriptors (at most PHOTOPICK_CHANNEL_MAX_FDS). */
int photopick_channel_send_fds(int socket, const void *data, size_t length, const int *fds, int count);

/* As `photopick_channel_receive`, keeping up to `capacity` descriptors in `fds` (how many in
 * `count`); any beyond are closed. On failure none is kept (`count` is 0). */
ssize_t photopick_channel_receive_fds(int socket, void *data, size_t length, int *fds, int capacity, int *count);

/* A page of memory shared with a worker (memfd, close-on-exec), where it says which file of a
 * batch it is on: a crash is then put down to that file. Returns the descriptor, or -1. */
int photopick_progress_file(void);


/* An anonymous file in memory for a decoded picture's pixels (memfd_create, close-on-exec,
 * sealable). Returns the descriptor, or -1 with errno set. */
int photopick_pixels_file(void);

/* A memory file of `size` bytes shared with a decode worker for the lifetime of the worker: it
 * writes each picture's pixels there (a new memory file a picture cost each decode a dozen
 * system calls and the page faults of fresh pages on both sides, 0.5 ms of a 2 ms thumbnail).
 * Sealed against shrinking and growing, so the window's mapping of it always holds. */
int photopick_shared_pixels_file(size_t size);

/* Seals a pixels file against growing, shrinking and writing: the receiver maps what it
 * checked. Returns 0, or -1 with errno set. */
int photopick_seal_pixels(int fd);

/* The worker's own limits, set as it starts: it dies with its parent (PR_SET_PDEATHSIG) and can
 * never gain privileges (PR_SET_NO_NEW_PRIVS). Returns 0, or -1 with errno set. */
int photopick_worker_prepare(void);

/* The address space the worker may have in all: what it uses now plus `budget` bytes. */
int photopick_worker_limit_memory(unsigned long long budget);

/* Processor time from now: `seconds` more, then SIGXCPU ends the process. */
int photopick_worker_limit_cpu(unsigned int seconds);

/* Shuts the worker in: from here on a system call outside what decoding from descriptors
 * needs fails with EACCES (opening files, sockets, running programs, mapping executable
 * memory), for every thread. Returns 0, or -1 with errno set (a kernel without seccomp). */
int photopick_worker_enter_sandbox(void);

/* The crash journal's signal side (PhotoLibrary's CrashJournal). A reader thread says which
 * journal byte and slot it is on while it reads a file; should the process then die of a
 * crash signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP: a Swift trap is one), the
 * handler writes slot + 1 into that byte (a shared mapping of the journal file, so it outlives
 * the process) and hands the signal on to whatever handled it before. Installed once. */
void photopick_crash_journal_install(void);
void photopick_crash_journal_enter(volatile unsigned char *crash_byte, int slot);
void photopick_crash_journal_leave(void);

/* The file this code was loaded from: the program, or libphotopick-1.so when the picker is
 * embedded in another program (which then finds its workers and catalogues beside it). NULL
 * when it cannot be told. */
const char *photopick_code_file(void);

#endif
