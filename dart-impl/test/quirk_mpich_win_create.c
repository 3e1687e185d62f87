/* Plain MPI, no DART: shows that MPICH 4.0.2 still gets two kinds of
 * MPI_Win_create windows wrong, the reason globmem.c keeps every portion
 * of a team in the team's dynamic window under MPICH (window_per_segment):
 * - a window whose memory overlaps another window's: a fetch-and-op at
 *   displacement 0 of a window over buffer + 32 lands at buffer + 0, the
 *   base of the older window over the whole buffer;
 * - a window whose base is not 16-byte aligned: displacement 0 of a window
 *   over buffer + 8 reads the byte at buffer + 0.
 * Registered with WILL_FAIL before MPICH 4.2; 4.2 gets both right
 * (scripts/test.sh cluster-mpich42), so there MPICH could have a window
 * per segment too. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int target = (me + 1) % n;
  static _Alignas(64) long words[16];
  static _Alignas(64) unsigned char bytes[64];
  for (int k = 0; k < 64; ++k) {
    bytes[k] = (unsigned char)k;
  }
  MPI_Win whole, inner, odd;
  MPI_Win_create(words, sizeof words, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                 &whole);
  MPI_Win_create((char *)words + 32, sizeof words - 32, 1, MPI_INFO_NULL,
                 MPI_COMM_WORLD, &inner);
  MPI_Win_create(bytes + 8, 32, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &odd);
  MPI_Win_lock_all(0, inner);
  MPI_Win_lock_all(0, odd);
  long one = 1, old = -1;
  MPI_Fetch_and_op(&one, &old, MPI_LONG, target, 0, MPI_SUM, inner);
  MPI_Win_flush(target, inner);
  unsigned char got = 0xff;
  MPI_Get(&got, 1, MPI_BYTE, target, 0, 1, MPI_BYTE, odd);
  MPI_Win_flush(target, odd);
  MPI_Win_unlock_all(odd);
  MPI_Win_unlock_all(inner);
  MPI_Barrier(MPI_COMM_WORLD);
  int wrong[2] = { words[4] != 1 || words[0] != 0, got != 8 }, any[2];
  MPI_Allreduce(wrong, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) {
    printf("quirk_mpich_win_create: overlapping windows %s, a base 8 bytes "
           "past a 16-byte boundary %s\n", any[0] ? "mixed up" : "correct",
           any[1] ? "rounded down" : "correct");
  }
  MPI_Win_free(&odd);
  MPI_Win_free(&inner);
  MPI_Win_free(&whole);
  MPI_Finalize();
  return any[0] || any[1] ? 1 : 0;
}
