// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include "CDecodeChannel.h"
#include <dlfcn.h>

#include <errno.h>
#include <poll.h>
#include <time.h>
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
    return photopick_channel_receive_within(socket, data, length, fd, -1);
}

ssize_t photopick_channel_receive_within(int socket, void *data, size_t length, int *fd, int milliseconds) {
    int count = 0;
    *fd = -1;
    ssize_t received = photopick_channel_receive_fds_within(socket, data, length, fd, 1, &count, milliseconds);
    if (count == 0) *fd = -1;
    return received;
}

ssize_t photopick_channel_receive_fds(int socket, void *data, size_t length, int *fds, int capacity, int *count) {
    return photopick_channel_receive_fds_within(socket, data, length, fds, capacity, count, -1);
}

static long long now_milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

ssize_t photopick_channel_receive_fds_within(int socket, void *data, size_t length, int *fds, int capacity, int *count,
                                             int milliseconds) {
    char *bytes = data;
    size_t received = 0;
    *count = 0;
    long long deadline = milliseconds >= 0 ? now_milliseconds() + milliseconds : 0;
    while (received < length) {
        /* The deadline holds across every part of the message: a peer that sends a byte and
         * stops is given up on at the same time as one that sends nothing. */
        if (milliseconds >= 0) {
            long long left = deadline - now_milliseconds();
            struct pollfd waiting = { .fd = socket, .events = POLLIN };
            int ready = left > 0 ? poll(&waiting, 1, (int)left) : 0;
            if (ready < 0 && errno == EINTR) continue;
            if (ready < 0) goto failed;
            if (ready == 0) {
                errno = ETIMEDOUT;
                goto failed;
            }
        }
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

int photopick_shared_pixels_file(size_t size) {
    int fd = memfd_create("photopick-shared-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        close(fd);
        return -1;
    }
    return fd;
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
