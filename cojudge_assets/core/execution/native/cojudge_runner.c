/* cojudge_runner: run a program inside the sandbox and report how it ended.
 *
 * usage: cojudge_runner FD PROGRAM [ARGS...]
 * Writes "run" to file descriptor FD, forks, execs PROGRAM in the child, waits for it with
 * wait4 and writes one line "status utime_s stime_s maxrss_kb" to FD. A report of "run" alone
 * means the runner was killed while the program ran (by the program itself: a kill of its
 * parent or of every process it may signal, or by the memory limit); no report at all means the
 * sandbox never got as far as the runner. The sandbox's own
 * process (bubblewrap) does not reap the program, so this is how the judge
 * learns the program's CPU time and its raw wait status (signal or exit code).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: cojudge_runner FD PROGRAM [ARGS...]\n");
        return 125;
    }
    int fd = atoi(argv[1]);
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
