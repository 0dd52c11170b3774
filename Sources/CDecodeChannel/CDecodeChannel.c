#define _GNU_SOURCE
#include "CDecodeChannel.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdio.h>
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
