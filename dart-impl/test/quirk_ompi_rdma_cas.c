/* Plain MPI, no DART: shows that Open MPI's osc/rdma still crashes the
 * target of contended MPI_Compare_and_swap on a dynamic window (ompi
 * #11349), the reason DART turns MPI atomics off under that component
 * (dart-impl/mpi/core/quirks.h). Registered with WILL_FAIL: the day this
 * program passes, that quirk can go. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int64_t word = 0;
  MPI_Win_attach(win, &word, sizeof word);
  MPI_Aint mine, target;
  MPI_Get_address(&word, &mine);
  target = mine;
  MPI_Bcast(&target, 1, MPI_AINT, 0, MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  /* Every rank increments rank 0's word 2000 times with a CAS loop. */
  for (int i = 0; i < 2000; ++i) {
    int64_t seen, now, want;
    MPI_Fetch_and_op(NULL, &seen, MPI_INT64_T, 0, target, MPI_NO_OP, win);
    MPI_Win_flush(0, win);
    for (;;) {
      want = seen + 1;
      MPI_Compare_and_swap(&want, &seen, &now, MPI_INT64_T, 0, target, win);
      MPI_Win_flush(0, win);
      if (now == seen) {
        break;
      }
      seen = now;
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  int ok = me != 0 || word == 2000 * (int64_t)n;
  if (me == 0) {
    printf("quirk_ompi_rdma_cas: counter %lld of %lld\n", (long long)word,
           2000LL * n);
  }
  MPI_Win_detach(win, &word);
  MPI_Win_free(&win);
  MPI_Finalize();
  return ok ? 0 : 1;
}
