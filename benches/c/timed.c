/* timed FILE COMMAND [ARG...]: runs COMMAND, then writes to FILE its wall
 * time in nanoseconds (CLOCK_MONOTONIC, read just before the fork and just
 * after wait4), its peak RSS in kB (wait4's ru_maxrss) and the CPU time it
 * used in microseconds (ru_utime + ru_stime, every thread), as
 * "NANOSECONDS KB MICROSECONDS\n"; exits with the command's status (128 +
 * the signal if it was killed). For benches/lock.sh and benches/install.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: timed FILE COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) {
        perror("wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long ns = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL +
                   (end.tv_nsec - start.tv_nsec);
    long long cpu_us = (long long)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000LL +
                       usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
    FILE *out = fopen(argv[1], "w");
    if (!out || fprintf(out, "%lld %ld %lld\n", ns, usage.ru_maxrss, cpu_us) < 0 ||
        fclose(out) != 0) {
        perror(argv[1]);
        return 2;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}
