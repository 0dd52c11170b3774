#define _GNU_SOURCE
#include "CDecodeChannel.h"
#include <dlfcn.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <sched.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int photopick_channel_send(int socket, const void *data, size_t length, int fd) {
    return photopick_channel_send_fds(socket, data, length, &fd, fd >= 0 ? 1 : 0);
}

int photopick_channel_send_fds(int socket, const void *data, size_t length, const int *fds, int count) {
    if (count < 0 || count > PHOTOPICK_CHANNEL_MAX_FDS) {
        errno = EINVAL;
        return -1;
    }
    const char *bytes = data;
    size_t sent = 0;
    int attach = count > 0;
    while (sent < length) {
        struct iovec part = { .iov_base = (void *)(bytes + sent), .iov_len = length - sent };
        union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * PHOTOPICK_CHANNEL_MAX_FDS)]; } control;
        struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1 };
        if (attach) {
            memset(&control, 0, sizeof control);
            message.msg_control = control.space;
            message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count);
            struct cmsghdr *header = CMSG_FIRSTHDR(&message);
            header->cmsg_level = SOL_SOCKET;
            header->cmsg_type = SCM_RIGHTS;
            header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
            memcpy(CMSG_DATA(header), fds, sizeof(int) * (size_t)count);
        }
        ssize_t written = sendmsg(socket, &message, MSG_NOSIGNAL);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        attach = 0;  /* the descriptors went with the first bytes */
        sent += (size_t)written;
    }
    return 0;
}

ssize_t photopick_channel_receive(int socket, void *data, size_t length, int *fd) {
    int count = 0;
    *fd = -1;
    ssize_t received = photopick_channel_receive_fds(socket, data, length, fd, 1, &count);
    if (count == 0) *fd = -1;
    return received;
}

ssize_t photopick_channel_receive_fds(int socket, void *data, size_t length, int *fds, int capacity, int *count) {
    char *bytes = data;
    size_t received = 0;
    *count = 0;
    while (received < length) {
        struct iovec part = { .iov_base = bytes + received, .iov_len = length - received };
        union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * PHOTOPICK_CHANNEL_MAX_FDS)]; } control;
        struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space,
                                  .msg_controllen = sizeof control.space };
        ssize_t got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
        if (got < 0) {
            if (errno == EINTR) continue;
            goto failed;
        }
        for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
            if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
            size_t count_fds = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t index = 0; index < count_fds; index++) {
                int received_fd;
                memcpy(&received_fd, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
                /* Descriptors beyond what the caller takes are closed, never leaked. */
                if (*count < capacity) fds[(*count)++] = received_fd; else close(received_fd);
            }
        }
        /* A control buffer that was too small leaves the descriptors it cut off unknown. */
        if (message.msg_flags & MSG_CTRUNC) {
            errno = EPROTO;
            goto failed;
        }
        if (got == 0) {
            if (received == 0) return 0;
            errno = EPROTO;
            goto failed;
        }
        received += (size_t)got;
    }
    return (ssize_t)received;
failed:
    for (int index = 0; index < *count; index++) close(fds[index]);
    *count = 0;
    return -1;
}

int photopick_progress_file(void) {
    int fd = memfd_create("photopick-progress", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, 4096) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int photopick_pixels_file(void) {
    return memfd_create("photopick-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int photopick_shared_pixels_file(size_t size) {
    int fd = memfd_create("photopick-shared-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int photopick_seal_pixels(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

int photopick_worker_prepare(void) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    /* A crash ends a worker at once. The Swift runtime's backtracer handles these signals in
     * every Swift program; in a worker it cannot start its helper (no exec in the sandbox), and
     * a crash signal sent from outside (kill -SEGV) was then survived, as if nothing happened. */
    const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    for (size_t index = 0; index < sizeof crashes / sizeof crashes[0]; index++) signal(crashes[index], SIG_DFL);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return 0;
}

int photopick_worker_limit_memory(unsigned long long budget) {
    /* The first field of statm: the whole virtual size, in pages. */
    FILE *statm = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    if (statm) {
        if (fscanf(statm, "%llu", &pages) != 1) pages = 0;
        fclose(statm);
    }
    unsigned long long now = pages * (unsigned long long)sysconf(_SC_PAGESIZE);
    struct rlimit limit = { .rlim_cur = now + budget, .rlim_max = now + budget };
    return setrlimit(RLIMIT_AS, &limit);
}

int photopick_worker_limit_cpu(unsigned int seconds) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
    rlim_t used = (rlim_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1;
    struct rlimit limit = { .rlim_cur = used + seconds, .rlim_max = RLIM_INFINITY };
    return setrlimit(RLIMIT_CPU, &limit);
}

#if defined(__x86_64__)
#define PHOTOPICK_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PHOTOPICK_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define RETURN(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define DENY(code) RETURN(SECCOMP_RET_ERRNO | ((code) & SECCOMP_RET_DATA))
#define ALLOW(name) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1), RETURN(SECCOMP_RET_ALLOW)
/* A call allowed unless argument `n` has any of `bits` (the low 32 bits of it). */
#define ALLOW_WITHOUT(name, n, bits) \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 5), LOAD_ARG(n), \
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (bits), 0, 1), DENY(EACCES), RETURN(SECCOMP_RET_ALLOW), LOAD_NR

int photopick_worker_enter_sandbox(void) {
#ifndef PHOTOPICK_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PHOTOPICK_AUDIT_ARCH, 1, 0),
        RETURN(SECCOMP_RET_KILL_PROCESS),
        LOAD_NR,
#if defined(__x86_64__)
        /* The x32 calls share the numbers with a high bit: never ours. */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), RETURN(SECCOMP_RET_KILL_PROCESS),
#endif
        /* No executable memory: a decoder taken over cannot load code. */
        ALLOW_WITHOUT(mmap, 2, PROT_EXEC),
        ALLOW_WITHOUT(mprotect, 2, PROT_EXEC),
        /* Threads (a loader's decoder may start some), never new processes. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 5), LOAD_ARG(0),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0), DENY(EACCES), RETURN(SECCOMP_RET_ALLOW), LOAD_NR,
        /* (clone3's flags are behind a pointer: ENOSYS, and the C library falls back to clone.) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1), DENY(ENOSYS),
        /* Memory, time, signals, the process's own facts. */
        ALLOW(brk), ALLOW(munmap), ALLOW(mremap), ALLOW(madvise), ALLOW(futex), ALLOW(set_robust_list), ALLOW(rseq),
        ALLOW(clock_gettime), ALLOW(clock_getres), ALLOW(clock_nanosleep), ALLOW(nanosleep), ALLOW(gettimeofday),
        ALLOW(rt_sigreturn), ALLOW(rt_sigprocmask), ALLOW(rt_sigaction), ALLOW(sigaltstack), ALLOW(tgkill), ALLOW(restart_syscall),
        ALLOW(getpid), ALLOW(gettid), ALLOW(getppid), ALLOW(getuid), ALLOW(geteuid), ALLOW(getgid), ALLOW(getegid),
        ALLOW(sched_yield), ALLOW(sched_getaffinity), ALLOW(getrandom), ALLOW(uname), ALLOW(sysinfo), ALLOW(prctl),
        ALLOW(getrusage), ALLOW(prlimit64), ALLOW(setrlimit), ALLOW(getrlimit), ALLOW(exit), ALLOW(exit_group),
        /* Descriptors it was handed: read, write, map; the pixels file it makes and seals. */
        ALLOW(read), ALLOW(write), ALLOW(readv), ALLOW(writev), ALLOW(pread64), ALLOW(lseek), ALLOW(close),
        ALLOW(fstat), ALLOW(newfstatat), ALLOW(statx), ALLOW(fcntl), ALLOW(ftruncate), ALLOW(memfd_create),
        ALLOW(sendmsg), ALLOW(recvmsg), ALLOW(ppoll), ALLOW(eventfd2),
#if defined(__x86_64__)
        ALLOW(poll), ALLOW(arch_prctl), ALLOW(time),
#endif
        /* Everything else (opening a file, a socket, running a program): refused. */
        DENY(EACCES),
    };
    struct sock_fprog program = { .len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter };
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
#endif
}

static __thread volatile unsigned char *journal_byte;
static __thread int journal_slot;
static const int journal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
static struct sigaction journal_previous[sizeof journal_signals / sizeof journal_signals[0]];

static void journal_handler(int signal_number) {
    if (journal_byte) *journal_byte = (unsigned char)(journal_slot + 1);
    for (size_t index = 0; index < sizeof journal_signals / sizeof journal_signals[0]; index++) {
        if (journal_signals[index] == signal_number) sigaction(signal_number, &journal_previous[index], NULL);
    }
    /* Delivered once this handler returns (the signal is blocked meanwhile): a fault would
     * happen again anyway, an abort is raised again, and the earlier handler (the Swift
     * runtime's backtracer, or the default) then ends the process as it would have. */
    raise(signal_number);
}

void photopick_crash_journal_install(void) {
    static int installed;
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_SEQ_CST)) return;
    for (size_t index = 0; index < sizeof journal_signals / sizeof journal_signals[0]; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = journal_handler;
        /* On the thread's alternate stack when it has one (a stack overflow is a SIGSEGV too). */
        action.sa_flags = SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(journal_signals[index], &action, &journal_previous[index]);
    }
}

void photopick_crash_journal_enter(volatile unsigned char *crash_byte, int slot) {
    journal_slot = slot;
    journal_byte = crash_byte;
}

void photopick_crash_journal_leave(void) {
    journal_byte = NULL;
}

const char *photopick_code_file(void) {
    Dl_info info;
    if (dladdr((void *)photopick_code_file, &info) == 0) return NULL;
    return info.dli_fname;
}
