/* Plain MPI, no DART: shows that Open MPI 4.1's osc/ucx cannot serve a
 * dynamic window whose processes attach different numbers of regions
 * (support for non-uniform attach came with 5.0, ompi PR #10591): puts and
 * gets crash in the remote-key unpack or land wrong, and MPI_Win_free
 * crashes after regions came and went. The reason the local pool exposes
 * one region per unit, re-attached as it grows (docs/design.md, "The local
 * pool"). Registered with WILL_FAIL; a crash, an abort or a hang is
 * turned into a plain failure so the test fails the same way every time
 * (128 rounds at 3 processes: 10 of 10 runs failed, in about 1.5 s). */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void crashed(int sig)
{
  (void)sig;
  static const char text[] = "crashed: quirk still present\n";
  write(STDOUT_FILENO, text, sizeof text - 1);
  _exit(1);
}

enum { REGION = 4096 / sizeof(int64_t), MAX_REGIONS = 4, ROUNDS = 128 };

int main(int argc, char **argv)
{
  signal(SIGSEGV, crashed);
  signal(SIGBUS, crashed);
  signal(SIGABRT, crashed); /* UCX assertions */
  signal(SIGALRM, crashed); /* a hang, seen too, fails the same way */
  alarm(15);
  MPI_Init(&argc, &argv);
  int me = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(0, win);
  int64_t *pool = aligned_alloc(4096, MAX_REGIONS * REGION * sizeof *pool);
  MPI_Aint *addr = malloc((size_t)n * MAX_REGIONS * sizeof *addr);
  int *count = malloc((size_t)n * sizeof *count);
  int64_t *vals = malloc((size_t)n * MAX_REGIONS * sizeof *vals);
  int attached = 0, wrong = 0;
  for (int round = 0; round < ROUNDS && !wrong; ++round) {
    /* Rank r holds 1 + (r + round) % MAX_REGIONS regions this round. */
    int want = 1 + (me + round) % MAX_REGIONS;
    while (attached > want) {
      MPI_Win_detach(win, pool + --attached * REGION);
    }
    while (attached < want) {
      MPI_Win_attach(win, pool + attached++ * REGION, REGION * sizeof *pool);
    }
    /* Another window comes and goes in between. */
    MPI_Win other;
    int64_t *other_base = NULL;
    MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &other_base,
                     &other);
    MPI_Win_free(&other);
    MPI_Aint mine[MAX_REGIONS];
    for (int k = 0; k < MAX_REGIONS; ++k) {
      MPI_Get_address(pool + k * REGION, &mine[k]);
    }
    MPI_Allgather(mine, MAX_REGIONS, MPI_AINT, addr, MAX_REGIONS, MPI_AINT,
                  MPI_COMM_WORLD);
    MPI_Allgather(&attached, 1, MPI_INT, count, 1, MPI_INT, MPI_COMM_WORLD);
    /* My slot in every attached region of every rank. */
    for (int t = 0; t < n; ++t) {
      for (int k = 0; k < count[t]; ++k) {
        int64_t *v = &vals[t * MAX_REGIONS + k];
        *v = (int64_t)round << 32 | me << 16 | t << 8 | k;
        MPI_Put(v, 1, MPI_INT64_T, t, addr[t * MAX_REGIONS + k] + 8 * me, 1,
                MPI_INT64_T, win);
      }
    }
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < n; ++t) {
      for (int k = 0; k < count[t]; ++k) {
        int64_t got = -1;
        int err = MPI_Get(&got, 1, MPI_INT64_T, t,
                          addr[t * MAX_REGIONS + k] + 8 * me, 1, MPI_INT64_T,
                          win);
        if (err == MPI_SUCCESS) {
          err = MPI_Win_flush(t, win);
        }
        if (err != MPI_SUCCESS || got != vals[t * MAX_REGIONS + k]) {
          printf("rank %d round %d: region %d of rank %d: error %d, read "
                 "%llx\n", me, round, k, t, err, (unsigned long long)got);
          wrong = 1;
        }
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Win_unlock_all(win);
  while (attached > 0) {
    MPI_Win_detach(win, pool + --attached * REGION);
  }
  MPI_Win_free(&win);
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(vals);
  free(count);
  free(addr);
  free(pool);
  MPI_Finalize();
  if (me == 0) {
    printf(any ? "quirk still present\n" : "quirk gone\n");
  }
  return any;
}
