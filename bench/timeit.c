// timeit OUT COMMAND...: runs COMMAND and writes "WALL_NS MAXRSS_KB" to the file OUT; exits
// with the command's status (128 + the signal if a signal ended it). Also the tests' peak_rss
// (tests/meson.build): a child's peak counts from its parent's when it is made, so from this
// small process it is the command's own, where from a test's Python it would be at least the
// interpreter's.
//
// The benchmarks time a command from just before its fork to just after its exit, and take its
// peak RSS from wait4. Timing `/usr/bin/time -v` between two runs of `date`, as they did,
// added 3-6 ms of other processes' work to every figure: a tenth of a 50 ms run, and the same
// amount for the peer tool, which pulled every ratio of short runs toward 1.

#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: timeit OUT COMMAND...\n");
    return 2;
  }
  FILE* out = fopen(argv[1], "we");  // not inherited by the command
  if (!out) {
    perror(argv[1]);
    return 2;
  }
  const pid_t parent = getpid();
  const long long t0 = nowNs();
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    // Killed with this process (a test's timeout kills only it), unless that happened already.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) {
    perror("wait4");
    return 2;
  }
  const long long t1 = nowNs();
  fprintf(out, "%lld %ld\n", t1 - t0, usage.ru_maxrss);
  if (fclose(out) != 0) {
    perror(argv[1]);
    return 2;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
