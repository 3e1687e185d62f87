#include "shmem_peer.h"

#include <shmem.h>

/* Symmetric reduction buffers. Two pSync arrays are used in turn, so a
 * reduction never reuses the one its predecessor may still be using. */
static long long sum_in, sum_out;
static long long sum_work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static float max_in, max_out;
static float max_work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long reduce_sync[2][SHMEM_REDUCE_SYNC_SIZE];
static int turn;

void shmem_peer_start(void)
{
  shmem_init();
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) {
      reduce_sync[t][i] = SHMEM_SYNC_VALUE;
    }
  }
  shmem_barrier_all(); /* every PE's pSync is ready before first use */
}

long long shmem_peer_sum(long long v)
{
  sum_in = v;
  shmem_longlong_sum_to_all(&sum_out, &sum_in, 1, 0, 0, shmem_n_pes(),
                            sum_work, reduce_sync[turn]);
  turn ^= 1;
  return sum_out;
}

float shmem_peer_max(float v)
{
  max_in = v;
  shmem_float_max_to_all(&max_out, &max_in, 1, 0, 0, shmem_n_pes(),
                         max_work, reduce_sync[turn]);
  turn ^= 1;
  return max_out;
}
