/* Plain MPI, no DART: shows that Open MPI 4.1's osc/pt2pt still never
 * returns from MPI_Win_flush_local on the calling process after an
 * MPI_Get from itself while a get from another process is outstanding
 * (test_onesided's pattern), the reason DART flushes with MPI_Win_flush
 * (dart-impl/mpi/core/quirks.h, mpi_win_flush_local). A hang is turned
 * into a failure by an alarm. Registered with WILL_FAIL: the day this
 * program passes, that quirk can go. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void hung(int sig)
{
  (void)sig;
  static const char text[] =
    "quirk_ompi_pt2pt_flush_local: MPI_Win_flush_local hangs\n";
  (void)!write(STDERR_FILENO, text, sizeof text - 1);
  _exit(1);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int peer = (me + 1) % n;
  long mine[8], got[16];
  for (int i = 0; i < 8; ++i) {
    mine[i] = 100 * me + i;
  }
  MPI_Win win;
  MPI_Win_create(mine, sizeof mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  signal(SIGALRM, hung);
  alarm(10);
  int ok = 1;
  for (int round = 0; round < 100 && ok; ++round) {
    MPI_Get(got, 8, MPI_LONG, me, 0, 8, MPI_LONG, win);
    MPI_Get(got + 8, 8, MPI_LONG, peer, 0, 8, MPI_LONG, win);
    MPI_Win_flush_local(me, win);
    MPI_Win_flush(peer, win);
    ok = got[7] == 100 * me + 7 && got[15] == 100 * peer + 7;
  }
  alarm(0);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  if (me == 0) {
    printf("quirk_ompi_pt2pt_flush_local: %s\n", ok ? "returns" : "wrong data");
  }
  return ok ? 0 : 1;
}
