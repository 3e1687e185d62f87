/* Start-up and reductions shared by the OpenSHMEM peers. */
#ifndef SHMEM_PEER_H
#define SHMEM_PEER_H

/* shmem_init and the reductions' synchronisation arrays. */
void shmem_peer_start(void);

/* Sum and maximum over all PEs, returned on every PE (collective). */
long long shmem_peer_sum(long long v);
float shmem_peer_max(float v);

#endif
