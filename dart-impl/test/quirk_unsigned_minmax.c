/* Plain MPI, no DART: shows that the MPI library still compares an
 * unsigned type as signed in MPI_MIN or MPI_MAX (MPICH 4.0.2 every
 * unsigned type, pmodels/mpich #6083; Open MPI 4.1.4 MPI_UNSIGNED_LONG,
 * ompi #10525), the reason for mpi_minmax_type in
 * dart-impl/mpi/core/quirks.h. Registered with WILL_FAIL where the bug
 * is known (Open MPI 4.1, MPICH before 4.2; MPICH 4.2 orders them right):
 * the day this program passes everywhere, that quirk can go. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int wrong = 0;
  /* min(ULONG_MAX, 1) must be 1; a signed comparison says ULONG_MAX. */
  unsigned long big = (unsigned long)-1, result = 1;
  MPI_Reduce_local(&big, &result, 1, MPI_UNSIGNED_LONG, MPI_MIN);
  if (result != 1) {
    printf("MPI_MIN(ULONG_MAX, 1) on MPI_UNSIGNED_LONG gave %lu\n", result);
    wrong = 1;
  }
  result = 1;
  MPI_Reduce_local(&big, &result, 1, MPI_UNSIGNED_LONG, MPI_MAX);
  if (result != big) {
    printf("MPI_MAX(ULONG_MAX, 1) on MPI_UNSIGNED_LONG gave %lu\n", result);
    wrong = 1;
  }
  MPI_Finalize();
  printf(wrong ? "quirk still present\n" : "quirk gone\n");
  return wrong;
}
