/* cojudge_runner: run a program inside the sandbox and report how it ended.
 *
 * usage: cojudge_runner FD [--seccomp=BPF_FD] PROGRAM [ARGS...]
 *
 * First makes itself non-dumpable (PR_SET_DUMPABLE 0): its /proc/<pid>/mem, /proc/<pid>/fd, /proc/<pid>/syscall
 * and the rest of what ptrace_may_access guards are then closed to every process without CAP_SYS_PTRACE, so the
 * program it starts (same uid, no capabilities) can neither rewrite its memory nor reopen its report descriptor.
 * A submitted program that wrote this process's memory forged its own verdict before (a crash judged AC).
 * If that fails, it reports nothing and exits 125.
 *
 * With --seccomp=BPF_FD (the sandbox without bubblewrap, which otherwise installs it), then reads a
 * classic BPF program from BPF_FD to its end and installs it as this process's seccomp filter (with
 * no_new_privs), so the program and all it starts run under it; if that fails, it reports nothing and
 * exits 125 (the run never goes ahead without the filter it was given). Then writes "run" to file descriptor
 * FD, forks, and in the child closes every descriptor but 0, 1 and 2 (the program holds no way to the report)
 * and execs PROGRAM (exec makes the program dumpable again: its own memory is its own business). It waits for
 * the program with wait4 and writes one line "status utime_s stime_s maxrss_kb" to FD.
 *
 * Under bubblewrap it is the pid namespace's process 1 (--as-pid-1: no bubblewrap init beside it, whose memory the
 * program could have written, outside the seccomp filter): the kernel then delivers no signal to it from inside
 * the namespace that it has no handler for, so the program cannot kill it either, and it reaps the orphans the
 * program leaves until the program itself ends. A report of "run" alone means the runner was killed while the
 * program ran (without bubblewrap: by the program itself, a kill of its parent or of every process it may signal;
 * or by the memory limit); no report at all means the sandbox never got as far as the runner. The sandbox's own
 * process (bubblewrap) does not reap the program, so this is how the judge learns the program's CPU time and its
 * raw wait status (signal or exit code).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read a BPF program from bpf_fd to its end and install it on this process; 0 on success. */
static int install_filter(int bpf_fd) {
    static struct sock_filter code[BPF_MAXINSNS];
    size_t have = 0;
    for (;;) {
        ssize_t got = read(bpf_fd, (char *)code + have, sizeof code - have);
        if (got < 0) return perror("cojudge_runner: reading the seccomp filter"), -1;
        if (got == 0) break;
        have += (size_t)got;
        if (have == sizeof code) break;
    }
    close(bpf_fd);
    if (have == 0 || have % sizeof code[0] != 0) {
        fprintf(stderr, "cojudge_runner: the seccomp filter is %zu bytes, not whole instructions\n", have);
        return -1;
    }
    struct sock_fprog prog = {.len = (unsigned short)(have / sizeof code[0]), .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return perror("cojudge_runner: no_new_privs"), -1;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        return perror("cojudge_runner: installing the seccomp filter"), -1;
    return 0;
}

/* Close every descriptor from 3 up: close_range(2), or one by one where the kernel lacks it. */
static void close_from_3(void) {
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
    long top = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (top > 0 ? top : 65536); fd++) close((int)fd);
}

int main(int argc, char **argv) {
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) {
        perror("cojudge_runner: making itself non-dumpable");
        return 125;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: cojudge_runner FD [--seccomp=BPF_FD] PROGRAM [ARGS...]\n");
        return 125;
    }
    int fd = atoi(argv[1]);
    if (strncmp(argv[2], "--seccomp=", 10) == 0) {
        if (argc < 4 || install_filter(atoi(argv[2] + 10)) != 0) return 125;
        argv++;
    }
    if (dprintf(fd, "run\n") < 0) {
        perror("cojudge_runner: report");
        return 125;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("cojudge_runner: fork");
        return 125;
    }
    if (pid == 0) {
        close_from_3();
        execvp(argv[2], argv + 2);
        perror("cojudge_runner: exec");
        _exit(126);
    }
    int status = 0;
    struct rusage usage;
    for (;;) { /* the program, and (as process 1) the orphans it left, until the program itself */
        int other;
        struct rusage ignored;
        pid_t got = wait4(-1, &other, 0, &ignored);
        if (got == pid) {
            status = other;
            usage = ignored;
            break;
        }
        if (got < 0 && errno != EINTR) {
            perror("cojudge_runner: wait4");
            return 125;
        }
    }
    dprintf(fd, "%d %ld.%06ld %ld.%06ld %ld\n", status, (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec, usage.ru_maxrss);
    close(fd);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
