// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef PHOTOPICK_DECODE_CHANNEL_H
#define PHOTOPICK_DECODE_CHANNEL_H

#include <stddef.h>
#include <spawn.h>
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

/* As `photopick_channel_receive`, giving up after `milliseconds` in all (ETIMEDOUT), however the
 * message is cut into parts: -1 waits for ever. */
ssize_t photopick_channel_receive_within(int socket, void *data, size_t length, int *fd, int milliseconds);

/* The most descriptors one message carries (a metadata worker's batch of files). */
#define PHOTOPICK_CHANNEL_MAX_FDS 64

/* As `photopick_channel_send`, with `count` descriptors (at most PHOTOPICK_CHANNEL_MAX_FDS). */
int photopick_channel_send_fds(int socket, const void *data, size_t length, const int *fds, int count);

/* As `photopick_channel_receive`, keeping up to `capacity` descriptors in `fds` (how many in
 * `count`); any beyond are closed. On failure none is kept (`count` is 0). */
ssize_t photopick_channel_receive_fds(int socket, void *data, size_t length, int *fds, int capacity, int *count);

/* As `photopick_channel_receive_fds`, within `milliseconds` in all (-1: no limit). */
ssize_t photopick_channel_receive_fds_within(int socket, void *data, size_t length, int *fds, int capacity, int *count,
                                             int milliseconds);

/* A page of memory shared with a worker (memfd, close-on-exec), where it says which file of a
 * batch it is on: a crash is then put down to that file. Returns the descriptor, or -1. */
int photopick_progress_file(void);


/* A memory file of `size` bytes shared with a decode worker for the lifetime of the worker: it
 * writes each picture's pixels there (a new memory file a picture cost each decode a dozen
 * system calls and the page faults of fresh pages on both sides, 0.5 ms of a 2 ms thumbnail).
 * Sealed against shrinking and growing, so the window's mapping of it always holds: the only
 * place the window takes a worker's pixels from. */
int photopick_shared_pixels_file(size_t size);

/* posix_spawn_file_actions_addclosefrom_np (glibc 2.34), which Swift's Glibc module does not
 * show: the child closes every descriptor from `first` on. */
int photopick_spawn_close_from(posix_spawn_file_actions_t *actions, int first);

/* The worker's own limits, set as it starts (WorkerSandbox.c): it dies with its parent
 * (PR_SET_PDEATHSIG), can never gain privileges (PR_SET_NO_NEW_PRIVS), and holds no descriptor
 * from `first_unused` on (whatever its starter had open without close-on-exec). Returns 0, or
 * -1 with errno set. */
int photopick_worker_prepare(int first_unused);

/* The address space the worker may have in all: what it uses now plus `budget` bytes. */
int photopick_worker_limit_memory(unsigned long long budget);

/* The address space this decode may add: the least the worker was seen to use before a decode
 * plus `allowance` bytes (what earlier decodes left in its heap counts within it), within the
 * limit above. The window's share of the
 * budget for this decode; a decoder taken over could raise it up to that limit, no further. */
int photopick_worker_allow_memory(unsigned long long allowance);

/* Processor time from now: `seconds` more, then SIGXCPU ends the process. */
int photopick_worker_limit_cpu(unsigned int seconds);

/* Shuts the worker in (both walls below). `landlock_abi` gets Landlock's ABI version in force,
 * or minus the errno that says why there is none (-ENOSYS, -EOPNOTSUPP). Returns 0, or -1 with
 * errno set when seccomp could not be entered. */
int photopick_worker_enter_sandbox(int *landlock_abi);

/* The same, where files beneath the `count` folders of `readable` may be opened to be read (the
 * fonts an SVG's text needs): Landlock lets nothing else be opened, and the seccomp filter lets
 * openat through only without any right to write, and only when Landlock stands. */
int photopick_worker_enter_sandbox_reading(int *landlock_abi, const char *const *readable, int count);

/* Confines the calling process before it runs a thumbnailer of another project (a video's):
 * it dies with its parent, gains no privileges, holds at most `address_space` bytes of address
 * space, and, where Landlock is, may write nothing but beneath `writable`, reach no TCP port and
 * signal nothing outside. Returns Landlock's ABI in force, 0 without Landlock, or -1. */
int photopick_confine_program(const char *writable, unsigned long long address_space);

/* Landlock alone: no file may be opened, made or run by path, no TCP port reached, and (ABI 6 on)
 * no signal sent outside the worker. Returns the ABI version in force, or -1 with errno set. */
int photopick_worker_enter_landlock(void);

/* The same, with files beneath the `count` folders of `readable` readable (and nothing else). */
int photopick_worker_enter_landlock_reading(const char *const *readable, int count);

/* seccomp alone: from here on a system call outside what decoding from descriptors needs fails
 * with EACCES, for every thread; signals and limits reach only the worker itself. With
 * `reads_files`, openat is let through to read (Landlock must say where). Returns 0, or -1 with
 * errno set (a kernel without seccomp). */
int photopick_worker_enter_seccomp(int reads_files);

/* What the walls let through, tried for real from inside a worker: opening a file, making a
 * socket, signalling, limiting, tracing the window (its parent), stat by path, and fstat of its
 * own `channel`; "open /etc/passwd: Permission denied; socket: …; fstat its channel: allowed"
 * into `out`. The signals are signal 0 and the limit is only read: nothing is done to anyone. */
void photopick_worker_check_walls(char *out, size_t size, int channel);

/* The same, and reading and writing `readable_file` (a font) when it is not NULL. */
void photopick_worker_check_walls_reading(char *out, size_t size, int channel, const char *readable_file);

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
