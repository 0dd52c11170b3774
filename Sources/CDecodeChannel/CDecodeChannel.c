#define _GNU_SOURCE
#include "CDecodeChannel.h"

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
    const char *bytes = data;
    size_t sent = 0;
    int attach = fd >= 0;
    while (sent < length) {
        struct iovec part = { .iov_base = (void *)(bytes + sent), .iov_len = length - sent };
        union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
        struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1 };
        if (attach) {
            memset(&control, 0, sizeof control);
            message.msg_control = control.space;
            message.msg_controllen = sizeof control.space;
            struct cmsghdr *header = CMSG_FIRSTHDR(&message);
            header->cmsg_level = SOL_SOCKET;
            header->cmsg_type = SCM_RIGHTS;
            header->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(header), &fd, sizeof(int));
        }
        ssize_t count = sendmsg(socket, &message, MSG_NOSIGNAL);
        if (count < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        attach = 0;  /* the descriptor went with the first bytes */
        sent += (size_t)count;
    }
    return 0;
}

ssize_t photopick_channel_receive(int socket, void *data, size_t length, int *fd) {
    char *bytes = data;
    size_t received = 0;
    *fd = -1;
    while (received < length) {
        struct iovec part = { .iov_base = bytes + received, .iov_len = length - received };
        union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * 4)]; } control;
        struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space,
                                  .msg_controllen = sizeof control.space };
        ssize_t count = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
        if (count < 0) {
            if (errno == EINTR) continue;
            goto failed;
        }
        for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
            if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
            size_t count_fds = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t index = 0; index < count_fds; index++) {
                int received_fd;
                memcpy(&received_fd, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
                /* One descriptor a message: any other is closed, never leaked. */
                if (*fd < 0) *fd = received_fd; else close(received_fd);
            }
        }
        if (count == 0) {
            if (received == 0) return 0;
            errno = EPROTO;
            goto failed;
        }
        received += (size_t)count;
    }
    return (ssize_t)received;
failed:
    if (*fd >= 0) { close(*fd); *fd = -1; }
    return -1;
}

int photopick_pixels_file(void) {
    return memfd_create("photopick-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int photopick_seal_pixels(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

int photopick_worker_prepare(void) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
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
