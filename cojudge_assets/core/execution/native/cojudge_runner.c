/* cojudge_runner: run a program inside the sandbox and report how it ended.
 *
 * usage: cojudge_runner FD [--seccomp=BPF_FD] PROGRAM [ARGS...]
 * With --seccomp=BPF_FD (the sandbox without bubblewrap, which otherwise installs it), first reads a
 * classic BPF program from BPF_FD to its end and installs it as this process's seccomp filter (with
 * no_new_privs), so the program and all it starts run under it; if that fails, it reports nothing and
 * exits 125 (the run never goes ahead without the filter it was given). Then writes "run" to file descriptor FD, forks, execs PROGRAM in the child, waits for it with
 * wait4 and writes one line "status utime_s stime_s maxrss_kb" to FD. A report of "run" alone
 * means the runner was killed while the program ran (by the program itself: a kill of its
 * parent or of every process it may signal, or by the memory limit); no report at all means the
 * sandbox never got as far as the runner. The sandbox's own
 * process (bubblewrap) does not reap the program, so this is how the judge
 * learns the program's CPU time and its raw wait status (signal or exit code).
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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

int main(int argc, char **argv) {
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
        close(fd);
        execvp(argv[2], argv + 2);
        perror("cojudge_runner: exec");
        _exit(126);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) {
        perror("cojudge_runner: wait4");
        return 125;
    }
    dprintf(fd, "%d %ld.%06ld %ld.%06ld %ld\n", status, (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec, usage.ru_maxrss);
    close(fd);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
