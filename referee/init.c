/* arena-init: the first process of every bot container (referee/sandbox.py, referee/init.py).
 *
 *     arena-init OUTPUT -- PROGRAM [ARGUMENT...]
 *
 * 1. Adds a seccomp filter to the engine's (filters stack: a call passes only if every one lets
 *    it). It closes what the engine's default profile leaves open of the page cache, which every
 *    container of an image shares with every later one: posix_fadvise() succeeds and does nothing
 *    (POSIX_FADV_DONTNEED would evict pages of the image's files that another process reads
 *    later), madvise(MADV_COLD or MADV_PAGEOUT) likewise, and io_uring (which has fadvise and
 *    madvise of its own), cachestat() and process_madvise() answer ENOSYS. So does every call of
 *    another ABI than the native one (32-bit calls, x32), which would need a filter of their own.
 * 2. Sends stdout and stderr to OUTPUT (the FIFO that the referee reads, capped) and reads stdin
 *    from /dev/null. The engine's own stdio pipes are closed then, in the only process that holds
 *    them: nothing a bot writes goes through the engine (its log driver, containerd's shim).
 * 3. Starts PROGRAM (searched in PATH, as the engine would) as its child, reaps every process
 *    orphaned in the container, and exits as PROGRAM does (128 + the signal that killed it).
 *
 * Built by the referee with the host's C compiler, statically (any image, FROM scratch too),
 * and bind-mounted read-only into each container. Its own errors go to the engine's stdio,
 * before the redirection: a line or two, which the referee shows after the bot's output.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "arena-init knows the system calls of x86-64 and arm64 only"
#endif

/* newer than some headers */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#define ADVICE_COLD 20    /* MADV_COLD */
#define ADVICE_PAGEOUT 21 /* MADV_PAGEOUT */

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RETURN(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define NOOP (SECCOMP_RET_ERRNO | 0) /* the call is not made and returns 0 */
#define NOSYS (SECCOMP_RET_ERRNO | ENOSYS)
#define IS(nr, action) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RETURN(action)

static int add_filter(void) {
    struct sock_filter code[] = {
        LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        RETURN(NOSYS),
        LOAD(nr),
#ifdef X32_BIT
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 0, 1),
        RETURN(NOSYS),
#endif
        IS(__NR_fadvise64, NOOP),
        IS(__NR_io_uring_setup, NOSYS),
        IS(__NR_io_uring_enter, NOSYS),
        IS(__NR_io_uring_register, NOSYS),
        IS(__NR_process_madvise, NOSYS),
        IS(__NR_cachestat, NOSYS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_madvise, 0, 5),
        LOAD(args[2]), /* the advice (an int: the low word, on these little-endian machines) */
        IS(ADVICE_COLD, NOOP),
        IS(ADVICE_PAGEOUT, NOOP),
        RETURN(SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = sizeof code / sizeof code[0], .filter = code};
    /* the engine sets no_new_privs already (no-new-privileges); it is what lets us add a filter */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program);
}

static void fail(const char *what, const char *arg) {
    dprintf(2, "arena-init: %s %s: %s\n", what, arg, strerror(errno));
}

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        dprintf(2, "usage: arena-init OUTPUT -- PROGRAM [ARGUMENT...]\n");
        return 125;
    }
    if (add_filter() != 0) {
        fail("cannot add its seccomp filter", "");
        return 125;
    }
    int out = open(argv[1], O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (out < 0) {
        fail("cannot open", argv[1]);
        return 125;
    }
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
        fail("cannot set up stdio on", argv[1]);
        return 125;
    }
    close(in);
    close(out);
    pid_t child = fork();
    if (child < 0) {
        fail("cannot fork to run", argv[3]);
        return 125;
    }
    if (child == 0) {
        execvp(argv[3], argv + 3);
        fail("cannot run", argv[3]);
        _exit(errno == ENOENT ? 127 : 126);
    }
    for (;;) {
        int status;
        pid_t pid = wait(&status);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) return 125; /* no child left: cannot happen before the program's own end */
        if (pid == child) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
}
