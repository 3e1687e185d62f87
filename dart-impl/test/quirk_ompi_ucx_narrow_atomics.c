/* Plain MPI, no DART: shows that Open MPI's osc/ucx still hands narrow
 * and floating-point atomics to UCX integer atomics (ompi #6777): a
 * 1-byte MPI_Compare_and_swap neither swaps nor returns the old value,
 * and an MPI_Fetch_and_op SUM on a float adds bit patterns. The reason
 * for narrow_atomics_broken in dart-impl/mpi/core/quirks.h. Registered
 * with WILL_FAIL: the day this program passes, that quirk can go. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct target_words {
  char  bytes[8];
  float sum;
};

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  struct target_words mem;
  memset(&mem, 0, sizeof mem);
  mem.sum = 1.5f;
  MPI_Win win;
  MPI_Win_create(&mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int wrong = 0;
  MPI_Win_lock_all(0, win);
  if (me == 1) {
    char swap_in = 7, expect = 0, old = 42;
    MPI_Compare_and_swap(&swap_in, &expect, &old, MPI_CHAR, 0,
                         offsetof(struct target_words, bytes) + 1, win);
    MPI_Win_flush(0, win);
    float add = 2.25f, before = 0;
    MPI_Fetch_and_op(&add, &before, MPI_FLOAT, 0,
                     offsetof(struct target_words, sum), MPI_SUM, win);
    MPI_Win_flush(0, win);
    if (old != 0 || before != 1.5f) {
      printf("origin saw: byte %d (want 0), float %g (want 1.5)\n", old,
             (double)before);
      wrong = 1;
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0 && (mem.bytes[1] != 7 || mem.sum != 3.75f)) {
    printf("target holds: byte %d (want 7), float %g (want 3.75)\n",
           mem.bytes[1], (double)mem.sum);
    wrong = 1;
  }
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  if (me == 0) {
    printf(any ? "quirk still present\n" : "quirk gone\n");
  }
  return any;
}
