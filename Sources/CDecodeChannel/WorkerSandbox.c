// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include "CDecodeChannel.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* The walls around a worker (the decode and metadata workers): a worker is assumed to be taken
 * over by the file it reads, and may then make any system call its filter allows, with any
 * arguments. Two walls, each enough on its own for what it covers:
 *
 * - Landlock (where the kernel has it, 5.13 on): no file may be opened, made, removed or run by
 *   any path, no TCP port reached, and, from its ABI 6 (6.12 on), no signal sent and no
 *   abstract Unix socket reached outside the worker.
 * - seccomp: a list of the calls decoding from descriptors needs, each with the reason it cannot
 *   reach outside the worker (beside it in `photopick_worker_enter_seccomp`); anything else
 *   fails with EACCES. */

int photopick_spawn_close_from(posix_spawn_file_actions_t *actions, int first) {
    return posix_spawn_file_actions_addclosefrom_np(actions, first);
}

int photopick_worker_prepare(int first_unused) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    /* Whatever the starting process had open without close-on-exec (its parent's files, a host
     * app's descriptors, a terminal) is not the worker's: a worker taken over could write to
     * it. The pool starts workers with nothing beyond their own, and this makes sure. */
    if (close_range((unsigned)first_unused, ~0U, 0) != 0) {
        for (int fd = first_unused; fd < 65536; fd++) close(fd);
    }
    /* A crash ends a worker at once. The Swift runtime's backtracer handles these signals in
     * every Swift program; in a worker it cannot start its helper (no exec in the sandbox), and
     * a crash signal sent from outside (kill -SEGV) was then survived, as if nothing happened. */
    const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    for (size_t index = 0; index < sizeof crashes / sizeof crashes[0]; index++) signal(crashes[index], SIG_DFL);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return 0;
}

/* /proc/self/statm, opened before the worker is shut in (Landlock refuses a new open; a read of
 * a descriptor held is no access to anything new): its first field is the whole virtual size, in
 * pages, read again before each decode. */
static int statm_fd = -1;

static unsigned long long address_space_now(void) {
    char text[64];
    ssize_t got = statm_fd >= 0 ? pread(statm_fd, text, sizeof text - 1, 0) : -1;
    if (got <= 0) return 0;
    text[got] = 0;
    unsigned long long pages = 0;
    if (sscanf(text, "%llu", &pages) != 1) return 0;
    return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

int photopick_worker_limit_memory(unsigned long long budget) {
    if (statm_fd < 0) statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    /* One heap for every thread a loader starts: each new arena would reserve 64 MB of address
     * space. (The allocator otherwise keeps its ways: giving large buffers back after every
     * decode, or trimming the heap, cost 3-4 % of the thumbnails' speed in fresh pages.) */
    mallopt(M_ARENA_MAX, 1);
    unsigned long long now = address_space_now();
    struct rlimit limit = { .rlim_cur = now + budget, .rlim_max = now + budget };
    return setrlimit(RLIMIT_AS, &limit);
}

/* The least address space the worker was seen to hold before a decode: what it needs to be
 * itself. What earlier decodes left in its heap counts within the next one's allowance. */
static unsigned long long settled_address_space = 0;

int photopick_worker_allow_memory(unsigned long long allowance) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0) return -1;
    unsigned long long now = address_space_now();
    if (now == 0) return -1;
    if (settled_address_space == 0 || now < settled_address_space) settled_address_space = now;
    unsigned long long wanted = settled_address_space + allowance;
    limit.rlim_cur = limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max ? limit.rlim_max : wanted;
    return setrlimit(RLIMIT_AS, &limit);
}

int photopick_worker_limit_cpu(unsigned int seconds) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
    rlim_t used = (rlim_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1;
    struct rlimit limit = { .rlim_cur = used + seconds, .rlim_max = RLIM_INFINITY };
    return setrlimit(RLIMIT_CPU, &limit);
}

/* MARK: Landlock */

/* Rights newer than Debian 12's headers (linux/landlock.h of 6.1 knows ABI 1 and 2). */
#define PHOTOPICK_LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define PHOTOPICK_LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */
#define PHOTOPICK_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)   /* ABI 4 */
#define PHOTOPICK_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define PHOTOPICK_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)  /* ABI 6 */
#define PHOTOPICK_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

#if defined(SYS_landlock_create_ruleset)
/* A ruleset handling every right this kernel's Landlock knows (`abi` gets its version): files
 * by path, TCP (ABI 4), signals and abstract sockets outside (ABI 6). With no rule added, it
 * grants nothing. Returns its descriptor, or -1 (ENOSYS: no Landlock in this kernel;
 * EOPNOTSUPP: not enabled at boot). */
static int landlock_ruleset(long *abi) {
    *abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (*abi < 1) return -1;
    /* The attributes grew with the ABI; a kernel refuses rights it does not know, so only those
     * of its ABI are named. */
    struct { uint64_t fs, net, scoped; } attributes = { 0, 0, 0 };
    size_t size = sizeof attributes.fs;
    attributes.fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  /* ABI 1: bits 0-12 */
    if (*abi >= 2) attributes.fs |= LANDLOCK_ACCESS_FS_REFER;
    if (*abi >= 3) attributes.fs |= PHOTOPICK_LANDLOCK_ACCESS_FS_TRUNCATE;
    if (*abi >= 5) attributes.fs |= PHOTOPICK_LANDLOCK_ACCESS_FS_IOCTL_DEV;
    if (*abi >= 4) {
        attributes.net = PHOTOPICK_LANDLOCK_ACCESS_NET_BIND_TCP | PHOTOPICK_LANDLOCK_ACCESS_NET_CONNECT_TCP;
        size = 2 * sizeof(uint64_t);
    }
    if (*abi >= 6) {
        attributes.scoped = PHOTOPICK_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | PHOTOPICK_LANDLOCK_SCOPE_SIGNAL;
        size = 3 * sizeof(uint64_t);
    }
    return (int)syscall(SYS_landlock_create_ruleset, &attributes, size, 0);
}

/* Grants `rights` beneath `path` (a folder, or a file for file rights). 0, 1 when `path` is
 * not there (and `optional`), or -1. */
static int landlock_allow(int ruleset, const char *path, uint64_t rights, int optional) {
    int target = open(path, O_PATH | O_CLOEXEC);
    if (target < 0) return optional ? 1 : -1;
    struct landlock_path_beneath_attr rule = { .allowed_access = rights, .parent_fd = target };
    long added = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int saved = errno;
    close(target);
    errno = saved;
    return added == 0 ? 0 : -1;
}

/* Binds the calling thread (and the threads it starts later) to `ruleset`, and closes it:
 * `abi`, or -1. */
static int landlock_restrict(int ruleset, long abi) {
    int restricted = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
    int saved = errno;
    close(ruleset);
    errno = saved;
    return restricted == 0 ? (int)abi : -1;
}
#endif

int photopick_worker_enter_landlock(void) { return photopick_worker_enter_landlock_reading(NULL, 0); }

int photopick_worker_enter_landlock_reading(const char *const *readable, int count) {
#if defined(SYS_landlock_create_ruleset)
    long abi;
    int ruleset = landlock_ruleset(&abi);
    if (ruleset < 0) return -1;
    /* Every right handled and none granted but reading beneath `readable` (the fonts): nothing
     * else by path, anywhere. (A folder a configuration names that is not there is passed.) */
    for (int index = 0; index < count; index++) {
        if (landlock_allow(ruleset, readable[index], LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, 1) < 0) {
            int saved = errno;
            close(ruleset);
            errno = saved;
            return -1;
        }
    }
    /* (The worker has one thread when it shuts itself in.) */
    return landlock_restrict(ruleset, abi);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* MARK: A thumbnailer of another project */

int photopick_confine_program(const char *writable, unsigned long long address_space) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    struct rlimit limit = { .rlim_cur = address_space, .rlim_max = address_space };
    if (setrlimit(RLIMIT_AS, &limit) != 0) return -1;
    /* The thumbnailer for the person's files, and its output, are all it needs written. */
    struct rlimit no_cores = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_cores);
#if defined(SYS_landlock_create_ruleset)
    long abi;
    int ruleset = landlock_ruleset(&abi);
    if (ruleset < 0) return 0;  /* no Landlock: the limits above stand alone */
    /* Everything may be read and run (the program, its libraries, its codecs' data, the file it
     * is given); only its own temporary folder may be written, and /dev/null; no TCP; no signal
     * or abstract socket outside it. A thumbnailer taken over by a video can change nothing of
     * the person's, and tell no one what it read. */
    uint64_t truncate = abi >= 3 ? PHOTOPICK_LANDLOCK_ACCESS_FS_TRUNCATE : 0;
    if (landlock_allow(ruleset, "/", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE, 0) < 0
        || landlock_allow(ruleset, writable, LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR
                              | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE | truncate, 0) < 0
        || landlock_allow(ruleset, "/dev/null", LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | truncate, 1) < 0) {
        int saved = errno;
        close(ruleset);
        errno = saved;
        return -1;
    }
    return landlock_restrict(ruleset, abi);
#else
    return 0;
#endif
}

/* MARK: seccomp */

#if defined(__x86_64__)
#define PHOTOPICK_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PHOTOPICK_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* glibc's fstat is newfstatat(fd, "", AT_EMPTY_PATH) (2.33 on), and the same call given a path
 * stats any file by name (`/etc/shadow`'s existence, size and times). A filter cannot read the
 * path, so the call traps here instead of running: with an empty path it is answered with the
 * plain fstat of the descriptor; with any other path it fails with EACCES. */
static void stat_trap(int signal_number, siginfo_t *info, void *raw_context) {
    (void)signal_number;
    ucontext_t *context = raw_context;
    int saved = errno;
    long result = -EACCES;
#if defined(__x86_64__)
    greg_t *registers = context->uc_mcontext.gregs;
    long fd = registers[REG_RDI], flags = registers[REG_R10];
    const char *path = (const char *)registers[REG_RSI];
    void *buffer = (void *)registers[REG_RDX];
#elif defined(__aarch64__)
    unsigned long long *registers = context->uc_mcontext.regs;
    long fd = (long)registers[0], flags = (long)registers[3];
    const char *path = (const char *)registers[1];
    void *buffer = (void *)registers[2];
#endif
    if (info->si_syscall == __NR_newfstatat && (flags & AT_EMPTY_PATH) && path && path[0] == '\0') {
        result = syscall(__NR_fstat, (int)fd, buffer) == 0 ? 0 : -errno;
    }
    /* access and faccessat (trapped only where files may be read: fontconfig asks before it
     * lets FreeType open a font): answered by opening the file to read it, which Landlock
     * allows beneath the font folders alone; asking to write or run is refused. */
    long access_dirfd = AT_FDCWD, mode = -1;
    const char *access_path = NULL;
#if defined(__x86_64__)
    if (info->si_syscall == __NR_access) { access_path = (const char *)registers[REG_RDI]; mode = registers[REG_RSI]; }
    if (info->si_syscall == __NR_faccessat || info->si_syscall == __NR_faccessat2) {
        access_dirfd = registers[REG_RDI]; access_path = (const char *)registers[REG_RSI]; mode = registers[REG_RDX];
    }
#elif defined(__aarch64__)
    if (info->si_syscall == __NR_faccessat || info->si_syscall == __NR_faccessat2) {
        access_dirfd = (long)registers[0]; access_path = (const char *)registers[1]; mode = (long)registers[2];
    }
#endif
    if (access_path && mode >= 0) {
        if (mode & (W_OK | X_OK)) {
            result = -EACCES;
        } else {
            long opened = syscall(__NR_openat, (int)access_dirfd, access_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            result = opened >= 0 ? 0 : -errno;
            if (opened >= 0) syscall(__NR_close, (int)opened);
        }
    }
#if defined(__x86_64__)
    registers[REG_RAX] = result;
#elif defined(__aarch64__)
    registers[0] = (unsigned long long)result;
#endif
    errno = saved;
}

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
/* The low 32 bits of argument n: what the kernel reads of an int, a pid or a command. */
#define LOAD_ARG(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define RETURN(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define DENY(code) RETURN(SECCOMP_RET_ERRNO | ((code) & SECCOMP_RET_DATA))
#define ALLOW(name) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1), RETURN(SECCOMP_RET_ALLOW)
/* A call allowed unless argument `n` has any of `bits`. */
#define ALLOW_WITHOUT(name, n, bits) \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 5), LOAD_ARG(n), \
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (bits), 0, 1), DENY(EACCES), RETURN(SECCOMP_RET_ALLOW), LOAD_NR
/* A call allowed only when argument `n` is `value` (the worker's own pid). */
#define ALLOW_IF(name, n, value) \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 5), LOAD_ARG(n), \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), 1, 0), DENY(EACCES), RETURN(SECCOMP_RET_ALLOW), LOAD_NR
/* A call allowed only when argument `n` is `first` or `second`. */
#define ALLOW_IF_EITHER(name, n, first, second) \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 6), LOAD_ARG(n), \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (first), 2, 0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (second), 1, 0), \
    DENY(EACCES), RETURN(SECCOMP_RET_ALLOW), LOAD_NR
/* Inside a list of values of an argument already loaded: allowed when it is `value`. */
#define ALLOW_VALUE(value) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), 0, 1), RETURN(SECCOMP_RET_ALLOW)

int photopick_worker_enter_seccomp(int reads_files) {
#ifndef PHOTOPICK_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    struct sigaction trap;
    memset(&trap, 0, sizeof trap);
    trap.sa_sigaction = stat_trap;
    trap.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&trap.sa_mask);
    if (sigaction(SIGSYS, &trap, NULL) != 0) return -1;
    /* The worker's own pid, compared with the pid a signal or limit call names. (Its threads
     * share it; glibc's raise and abort name it.) */
    const uint32_t self = (uint32_t)getpid();
    /* (No call has this number: without `reads_files`, openat meets the final refusal.) */
    const uint32_t openat_number = reads_files ? __NR_openat : 0xFFFFFFFFu;
    const uint32_t faccessat_number = reads_files ? __NR_faccessat : 0xFFFFFFFFu;
    const uint32_t faccessat2_number = reads_files ? __NR_faccessat2 : 0xFFFFFFFFu;
#if defined(__x86_64__)
    const uint32_t access_number = reads_files ? __NR_access : 0xFFFFFFFFu;
#endif
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PHOTOPICK_AUDIT_ARCH, 1, 0),
        RETURN(SECCOMP_RET_KILL_PROCESS),
        LOAD_NR,
#if defined(__x86_64__)
        /* The x32 calls share the numbers with a high bit: never ours. */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), RETURN(SECCOMP_RET_KILL_PROCESS),
#endif
        /* Memory: only the worker's own address space. No executable memory, so a decoder taken
         * over cannot load code; mmap maps only descriptors the worker holds (below). madvise
         * and mremap act on its own mappings (MADV_REMOVE on the shared pixels file only zeroes
         * pages the window copies from: a torn picture, never a fault). */
        ALLOW_WITHOUT(mmap, 2, PROT_EXEC),
        ALLOW_WITHOUT(mprotect, 2, PROT_EXEC),
        ALLOW(brk), ALLOW(munmap), ALLOW(mremap), ALLOW(madvise),
        /* Threads (a loader's decoder may start some), never new processes: clone without
         * CLONE_THREAD is refused, and a thread is the worker's, behind the same walls. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 5), LOAD_ARG(0),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0), DENY(EACCES), RETURN(SECCOMP_RET_ALLOW), LOAD_NR,
        /* (clone3's flags are behind a pointer: ENOSYS, and the C library falls back to clone.) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1), DENY(ENOSYS),
        /* Its threads' own bookkeeping: futexes wait and wake on addresses of its own memory (the
         * window never waits on the pages it shares with a worker); robust lists and rseq
         * register its own memory with the kernel. */
        ALLOW(futex), ALLOW(set_robust_list), ALLOW(rseq),
        /* Clocks and sleeps: they read time and wait, nothing more. */
        ALLOW(clock_gettime), ALLOW(clock_getres), ALLOW(clock_nanosleep), ALLOW(nanosleep), ALLOW(gettimeofday),
        /* Signals: handlers and masks are the worker's own. A signal may be sent to the worker
         * itself only (raise and abort: tgkill with its own pid; kill with its own pid); tkill
         * names a thread id, which may be any process's, and is refused. */
        ALLOW(rt_sigreturn), ALLOW(rt_sigprocmask), ALLOW(rt_sigaction), ALLOW(sigaltstack), ALLOW(restart_syscall),
        ALLOW_IF(tgkill, 0, self), ALLOW_IF(kill, 0, self),
        /* Facts about itself (ids, the machine's name and load, random bytes): reading them
         * changes nothing. getppid gives the window's pid, which no allowed call can act on. */
        ALLOW(getpid), ALLOW(gettid), ALLOW(getppid), ALLOW(getuid), ALLOW(geteuid), ALLOW(getgid), ALLOW(getegid),
        ALLOW(sched_yield), ALLOW(sched_getaffinity), ALLOW(getrandom), ALLOW(uname), ALLOW(sysinfo),
        /* Limits: setrlimit, getrlimit and getrusage act on the calling process only; prlimit64
         * names a process, and only 0 (itself) or its own pid are let through, so no other
         * process's limits can be read or set (a file-size limit of 0 ended the window). */
        ALLOW(getrusage), ALLOW(setrlimit), ALLOW(getrlimit), ALLOW_IF_EITHER(prlimit64, 0, 0, self),
        ALLOW(exit), ALLOW(exit_group),
        /* prctl: only naming its own threads (GLib and decoders' thread pools do) and reading
         * its own settings; nothing that changes who may reach it or what it may do. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 10), LOAD_ARG(0),
        ALLOW_VALUE(PR_SET_NAME), ALLOW_VALUE(PR_GET_NAME), ALLOW_VALUE(PR_GET_DUMPABLE), ALLOW_VALUE(PR_GET_NO_NEW_PRIVS),
        DENY(EACCES),
        /* Descriptors: the worker holds only its channel, the files it was handed (opened
         * read-only by the window), its shared memory file and /dev/null as 0-2 (everything
         * else was closed as it started, and nothing can be opened). Reading, writing, seeking
         * and mapping them reach nothing else; fstat describes the descriptor. */
        ALLOW(read), ALLOW(write), ALLOW(readv), ALLOW(writev), ALLOW(pread64), ALLOW(lseek), ALLOW(close), ALLOW(fstat),
        /* (No memfd_create or ftruncate: pixels go into the memory file the window made, and a
         * worker can make no file, in memory or elsewhere, that the budget does not see.) */
        /* fcntl: descriptor flags, file status flags and seals only. F_SETOWN and F_SETSIG
         * would have the kernel signal another process (the window) when the channel is ready;
         * locks are not needed. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fcntl, 0, 18), LOAD_ARG(1),
        ALLOW_VALUE(F_GETFD), ALLOW_VALUE(F_SETFD), ALLOW_VALUE(F_GETFL), ALLOW_VALUE(F_SETFL), ALLOW_VALUE(F_DUPFD_CLOEXEC),
        ALLOW_VALUE(F_GET_SEALS), ALLOW_VALUE(F_ADD_SEALS), ALLOW_VALUE(F_DUPFD),
        DENY(EACCES),
        /* stat by path traps (stat_trap: fstat of an empty path only); statx is refused with
         * ENOSYS, which its callers take for a kernel without it. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, 0, 1), RETURN(SECCOMP_RET_TRAP),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_statx, 0, 1), DENY(ENOSYS),
        /* Opening a file to read it, only where Landlock stands and lets it read the font
         * folders alone (`reads_files`): never to write, make, truncate or append, and no other
         * path (Landlock refuses it). Otherwise refused with the rest below. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, openat_number, 0, 4), LOAD_ARG(2),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_PATH | __O_TMPFILE, 1, 0),
        RETURN(SECCOMP_RET_ALLOW), DENY(EACCES),
        /* Asking whether a file may be read traps (stat_trap: answered by opening it to read). */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, faccessat_number, 0, 1), RETURN(SECCOMP_RET_TRAP),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, faccessat2_number, 0, 1), RETURN(SECCOMP_RET_TRAP),
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, access_number, 0, 1), RETURN(SECCOMP_RET_TRAP),
#endif
        /* The channel: a connected Unix stream socket to the window (a destination given with
         * sendmsg is ignored on it); no other socket exists or can be made. */
        ALLOW(sendmsg), ALLOW(recvmsg),
        /* Waiting on its own descriptors; an eventfd is a counter of its own. */
        ALLOW(ppoll), ALLOW(eventfd2),
#if defined(__x86_64__)
        ALLOW(poll), ALLOW(time),
        /* arch_prctl: its own threads' TLS registers. */
        ALLOW(arch_prctl),
#endif
        /* Everything else (opening a file, a socket, running a program, ioctl, ptrace,
         * process_vm_*, pidfd_*, sending signals elsewhere): refused. */
        DENY(EACCES),
    };
    struct sock_fprog program = { .len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter };
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
#endif
}

int photopick_worker_enter_sandbox(int *landlock_abi) {
    return photopick_worker_enter_sandbox_reading(landlock_abi, NULL, 0);
}

int photopick_worker_enter_sandbox_reading(int *landlock_abi, const char *const *readable, int count) {
    int abi = photopick_worker_enter_landlock_reading(readable, count);
    if (landlock_abi) *landlock_abi = abi > 0 ? abi : -errno;
    /* Files are opened only where Landlock stands to say which: without it, none. */
    return photopick_worker_enter_seccomp(abi > 0 && count > 0);
}

/* MARK: The check */

static void describe(char *out, size_t size, const char *step, int succeeded, int error) {
    size_t used = strlen(out);
    if (used >= size) return;
    snprintf(out + used, size - used, "%s%s: %s", used ? "; " : "", step, succeeded ? "allowed" : strerror(error));
}

void photopick_worker_check_walls(char *out, size_t size, int channel) {
    photopick_worker_check_walls_reading(out, size, channel, NULL);
}

void photopick_worker_check_walls_reading(char *out, size_t size, int channel, const char *readable_file) {
    if (size == 0) return;
    out[0] = '\0';
    pid_t window = getppid();
    int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
    describe(out, size, "open /etc/passwd", fd >= 0, errno);
    if (fd >= 0) close(fd);
    if (readable_file) {
        /* A font: read, never written (nor a file made beside it). */
        fd = open(readable_file, O_RDONLY | O_CLOEXEC);
        describe(out, size, "read a font", fd >= 0, errno);
        if (fd >= 0) close(fd);
        fd = open(readable_file, O_WRONLY | O_CLOEXEC);
        describe(out, size, "write a font", fd >= 0, errno);
        if (fd >= 0) close(fd);
    }
    int made = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    describe(out, size, "socket", made >= 0, errno);
    if (made >= 0) close(made);
    /* Signal 0 and a read of a limit: the permission checks of a kill and of prlimit, without
     * their effects. */
    describe(out, size, "kill the window", kill(window, 0) == 0, errno);
    describe(out, size, "tgkill the window", syscall(SYS_tgkill, window, window, 0) == 0, errno);
    struct rlimit limit;
    describe(out, size, "prlimit the window", prlimit(window, RLIMIT_FSIZE, NULL, &limit) == 0, errno);
    struct stat info;
    describe(out, size, "stat /etc/shadow", stat("/etc/shadow", &info) == 0, errno);
    struct statx extended;
    describe(out, size, "statx /etc/shadow", statx(AT_FDCWD, "/etc/shadow", 0, STATX_BASIC_STATS, &extended) == 0, errno);
    describe(out, size, "F_SETOWN to the window", fcntl(channel, F_SETOWN, window) == 0, errno);
    describe(out, size, "ptrace the window", syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, window, NULL, NULL) == 0, errno);
    describe(out, size, "pidfd_open the window", syscall(SYS_pidfd_open, window, 0) >= 0, errno);
    /* Its own descriptors still work: fstat (the trapped newfstatat) of its channel. */
    describe(out, size, "fstat its channel", fstat(channel, &info) == 0, errno);
}
