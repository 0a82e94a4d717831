// peak_rss COMMAND [ARG...]: runs COMMAND and prints its peak resident set in KB (ru_maxrss of
// wait4) as the last line of standard error; exits with its status. A child's peak counts from
// its parent's when it is made: from this small process it is the command's own, where from a
// test's Python it would be at least the interpreter's.
#define _DEFAULT_SOURCE  // wait4
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: peak_rss COMMAND [ARG...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) {
    perror("wait4");
    return 2;
  }
  fprintf(stderr, "peak_rss_kb %ld\n", usage.ru_maxrss);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
