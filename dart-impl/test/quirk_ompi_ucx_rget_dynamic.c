/* Plain MPI, no DART: shows that Open MPI's osc/ucx still looks up the
 * wrong region for MPI_Rget on a dynamic window with several attached
 * regions (ompi #10328, fixed for 5.0 by ompi PR #11095): the origin
 * crashes or reads garbage. The reason for request_rma_broken in
 * dart-impl/mpi/core/quirks.h. Registered with WILL_FAIL; a crash is
 * turned into a plain failure so the test fails the same way every
 * time. */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static void crashed(int sig)
{
  (void)sig;
  static const char text[] = "crashed: quirk still present\n";
  write(STDOUT_FILENO, text, sizeof text - 1);
  _exit(1);
}

int main(int argc, char **argv)
{
  signal(SIGSEGV, crashed);
  signal(SIGBUS, crashed);
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  /* Three regions: the one read from sits between two others. */
  static int64_t before[512], words[4], after[512];
  for (int i = 0; i < 4; ++i) {
    words[i] = 100 * (i + 1) + me;
  }
  MPI_Win_attach(win, before, sizeof before);
  MPI_Win_attach(win, words, sizeof words);
  MPI_Win_attach(win, after, sizeof after);
  MPI_Aint remote = 0;
  MPI_Get_address(words, &remote);
  MPI_Bcast(&remote, 1, MPI_AINT, 0, MPI_COMM_WORLD);
  int wrong = 0;
  MPI_Win_lock_all(0, win);
  if (me == 1) {
    int64_t got = -1;
    MPI_Request request;
    int err = MPI_Rget(&got, 1, MPI_INT64_T, 0, remote + 2 * 8, 1,
                       MPI_INT64_T, win, &request);
    if (err == MPI_SUCCESS) {
      err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    if (err != MPI_SUCCESS || got != 300) {
      printf("MPI_Rget: error %d, read %lld (want 300)\n", err,
             (long long)got);
      wrong = 1;
    }
  }
  MPI_Win_unlock_all(win);
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Win_detach(win, before);
  MPI_Win_detach(win, words);
  MPI_Win_detach(win, after);
  MPI_Win_free(&win);
  MPI_Finalize();
  if (me == 0) {
    printf(any ? "quirk still present\n" : "quirk gone\n");
  }
  return any;
}
