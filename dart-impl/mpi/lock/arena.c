/* The per-team lock arenas (see lock/arena.h). A HYBRID chunk is one
 * piece of node-shared memory on the team's node communicator (node_shm.h;
 * node rank 0 provides LOCK_ARENA_CHUNK cache lines) and, on multi-node
 * teams, one MPI_Win_allocate of LOCK_ARENA_CHUNK words per unit on the
 * team; an MCS chunk only the latter, LOCK_ARENA_MCS_WORDS words a slot.
 * Network windows stay in a lock_all epoch for the chunk's lifetime. */
#include "mpi/lock/arena.h"
#include "base/cache_line.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"
#include "mpi/memory/node_shm.h"

#include <stdlib.h>
#include <string.h>


struct arena_chunk {
  struct node_shm shm;
  int      node_size;
  char    *lines;   /* this node's LOCK_ARENA_CHUNK lines, line-aligned */
  MPI_Win  net_win;
  int64_t *net_words; /* my part of net_win */
};

struct lock_arena {
  dart_team_t          team_id;
  enum lock_arena_kind kind;
  int                 nchunks;
  struct arena_chunk *chunks;
  unsigned char      *used;     /* per slot */
  struct lock_arena  *next;
};

static struct lock_arena *arenas;
static pthread_mutex_t    arenas_mutex = PTHREAD_MUTEX_INITIALIZER;

static struct lock_arena *find(dart_team_t team_id, enum lock_arena_kind kind)
{
  struct lock_arena *a = arenas;
  while (a != NULL && (a->team_id != team_id || a->kind != kind)) {
    a = a->next;
  }
  return a;
}

static void chunk_free(struct arena_chunk *c)
{
  if (c->net_win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(c->net_win);
    MPI_Win_free(&c->net_win);
  }
  node_shm_free(&c->shm, c->node_size);
}

static int words_per_slot(enum lock_arena_kind kind)
{
  return kind == LOCK_ARENA_MCS ? LOCK_ARENA_MCS_WORDS : 1;
}

static dart_ret_t chunk_create_net(const char *call, struct team *team,
                                   enum lock_arena_kind kind,
                                   struct arena_chunk *c)
{
  int per_slot = words_per_slot(kind);
  int64_t *words = NULL;
  int err = MPI_Win_allocate(LOCK_ARENA_CHUNK * per_slot *
                                 (MPI_Aint)sizeof(int64_t),
                             sizeof(int64_t), MPI_INFO_NULL, team->comm,
                             &words, &c->net_win);
  if (err != MPI_SUCCESS) {
    c->net_win = MPI_WIN_NULL;
    return report_mpi_error(call, "MPI_Win_allocate", err);
  }
  MPI_Win_set_errhandler(c->net_win, MPI_ERRORS_RETURN);
  /* Nobody accesses the window before its first lock's creation barrier;
   * each lock resets its slot with MPI atomics then anyway. */
  for (int i = 0; i < LOCK_ARENA_CHUNK * per_slot; ++i) {
    words[i] = kind == LOCK_ARENA_MCS ? 0 : NET_CPU_MODE;
  }
  c->net_words = words;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, c->net_win);
  MPI_Win_sync(c->net_win);
  return DART_OK;
}

static dart_ret_t chunk_create(const char *call, struct team *team,
                               enum lock_arena_kind kind,
                               struct arena_chunk *c)
{
  c->shm = (struct node_shm){ .win = MPI_WIN_NULL };
  c->node_size = team->node_size;
  c->net_win = MPI_WIN_NULL;
  c->lines = NULL;
  c->net_words = NULL;
  if (kind == LOCK_ARENA_MCS) {
    return chunk_create_net(call, team, kind, c);
  }
  size_t bytes =
      team->node_rank == 0 ? (size_t)LOCK_ARENA_CHUNK * CACHE_LINE : 0;
  dart_ret_t ret = node_shm_alloc(call, team->node_comm, bytes, &c->shm);
  if (ret != DART_OK) {
    return ret;
  }
  c->lines = c->shm.bases[0];
  ret = team->num_nodes == 1 ? DART_OK
                             : chunk_create_net(call, team, kind, c);
  if (ret != DART_OK) {
    chunk_free(c);
  }
  return ret;
}

static dart_ret_t grow(const char *call, struct team *team,
                       struct lock_arena *a)
{
  int n = a->nchunks + 1;
  struct arena_chunk *chunks = realloc(a->chunks, (size_t)n * sizeof *chunks);
  if (chunks != NULL) {
    a->chunks = chunks;
  }
  unsigned char *used = realloc(a->used, (size_t)n * LOCK_ARENA_CHUNK);
  if (used != NULL) {
    a->used = used;
  }
  /* Every member must enter the collective allocation, even one out of
   * memory here, or the others hang: allocate first, report after. The
   * polled gate first: the window creations block (progress.h). */
  int err = progress_gate(team->comm);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Ibarrier", err);
  }
  struct arena_chunk fresh;
  dart_ret_t ret = chunk_create(call, team, a->kind, &fresh);
  if (ret != DART_OK) {
    return ret;
  }
  if (chunks == NULL || used == NULL) {
    chunk_free(&fresh);
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  memset(a->used + (size_t)a->nchunks * LOCK_ARENA_CHUNK, 0,
         LOCK_ARENA_CHUNK);
  a->chunks[a->nchunks] = fresh;
  a->nchunks = n;
  return DART_OK;
}

dart_ret_t lock_arena_take(const char *call, struct team *team,
                           enum lock_arena_kind kind, int *slot,
                           struct lock_slot *where)
{
  pthread_mutex_lock(&arenas_mutex);
  struct lock_arena *a = find(team->id, kind);
  if (a == NULL) {
    a = calloc(1, sizeof *a);
    if (a == NULL) {
      pthread_mutex_unlock(&arenas_mutex);
      return report_error(DART_ERR_NOMEM, call, "out of memory");
    }
    a->team_id = team->id;
    a->kind = kind;
    a->next = arenas;
    arenas = a;
  }
  int total = a->nchunks * LOCK_ARENA_CHUNK, s = 0;
  while (s < total && a->used[s]) {
    ++s;
  }
  dart_ret_t ret = s < total ? DART_OK : grow(call, team, a);
  if (ret == DART_OK) {
    a->used[s] = 1;
    struct arena_chunk *c = &a->chunks[s / LOCK_ARENA_CHUNK];
    int i = s % LOCK_ARENA_CHUNK;
    where->shm = c->lines == NULL ? NULL
                 : (struct lock_shm *)(c->lines + (size_t)i * CACHE_LINE);
    where->net_win = c->net_win;
    where->net_disp = (MPI_Aint)i * words_per_slot(kind);
    where->net_mine = c->net_win == MPI_WIN_NULL
                        ? NULL
                        : (_Atomic int64_t *)(c->net_words + where->net_disp);
    *slot = s;
  }
  pthread_mutex_unlock(&arenas_mutex);
  return ret;
}

void lock_arena_give_back(const struct team *team, enum lock_arena_kind kind,
                          int slot)
{
  pthread_mutex_lock(&arenas_mutex);
  struct lock_arena *a = find(team->id, kind);
  if (a != NULL && slot >= 0 && slot < a->nchunks * LOCK_ARENA_CHUNK) {
    a->used[slot] = 0;
  }
  pthread_mutex_unlock(&arenas_mutex);
}

void lock_arena_team_destroyed(const struct team *team)
{
  pthread_mutex_lock(&arenas_mutex);
  struct lock_arena **p = &arenas;
  while (*p != NULL) {
    struct lock_arena *a = *p;
    if (a->team_id != team->id) {
      p = &a->next;
      continue;
    }
    *p = a->next;
    for (int c = 0; c < a->nchunks; ++c) {
      chunk_free(&a->chunks[c]);
    }
    free(a->chunks);
    free(a->used);
    free(a);
  }
  pthread_mutex_unlock(&arenas_mutex);
}
