/* The MT-safe and MT-team calls that test_threads_stress,
 * test_threads_memory and test_locks_threads leave out, from 4 threads per
 * unit at once (dart_init_thread granting DART_THREAD_MULTIPLE):
 *
 * - locality (first, so that the threads make the first query of the
 *   process): all threads ask for DART_TEAM_ALL's domain at the same
 *   moment, which builds it on demand (locality/team_locality.c); they
 *   must all get the same tree. Then each clones it, finds its unit's
 *   domain, lists the node tags and the node domains (of the clone and of
 *   the shared tree) and reads every unit's record, round after round; all
 *   of it must equal what one thread reads afterwards.
 * - domain_edits: every thread edits copies of that tree of its own with
 *   every call that changes a caller-owned domain (split_scope, group,
 *   select, exclude, add_subdomain, move_subdomain, assign) and splits a
 *   group by locality (dart_group_locality_split), round after round;
 *   trees and groups must equal what one thread made alone before.
 * - groups: every thread builds, clones, unites, intersects, splits,
 *   removes members from and destroys groups of its own; members exact.
 * - two_sided: every thread sends to the next unit and receives from the
 *   previous one on a tag of its own (dart_send/dart_recv, dart_sendrecv),
 *   sizes from 1 to 8 Ki longs; MPI's order on one tag makes round r meet
 *   round r, so every message is checked word by word.
 * - collectives: a team per thread (MT-team); allreduce, reduce, bcast,
 *   allgather and barrier on it round after round; exact values.
 * - segment_meta: a team per thread allocating and freeing collective
 *   segments, plus local-pool blocks and a registration of its own,
 *   while gptr_getaddr/setaddr and getflags/setflags run on them: native
 *   addresses agree with what dart_get_blocking reads, flags stay per
 *   segment.
 * - segment_table_growth: one thread allocates 40 segments on a team
 *   while the others read a segment of that team (native address, get,
 *   get with a handle while the frees walk the handles).
 * - types_and_ops: every thread creates, uses and destroys strided,
 *   indexed and custom types and an operation with user data of its own
 *   (a put through a strided target type, a get through an indexed one,
 *   an allreduce with the operation and a broadcast of the custom type
 *   on its team); exact values.
 *
 * argv[1]: rounds (default 2000; a tenth of it for the cases that
 * communicate with a team, a segment per 10 of those). Without
 * MPI_THREAD_MULTIPLE the test fails: the registrations run it where both
 * MPIs grant it. Node counts and host names themselves are
 * test_locality's to check; here they must only agree across threads. */
#include "test_threads.h"

#include <dash/dart/if/dart_locality.h>

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, ALARM_S = 200 };

static int me, n;
static long rounds = 2000;
static dart_team_t teams[THREADS];

/* Rounds of the cases whose every round talks to the other units. */
static long team_rounds(void)
{
  return rounds / 10 > 5 ? rounds / 10 : 5;
}

static void clone_teams(void)
{
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &teams[t]));
  }
}

static void destroy_teams(void)
{
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_OK(dart_team_destroy(&teams[t]));
  }
}

/* ---- locality ---------------------------------------------------------- */

enum { MAX_UNITS = 64 };

struct locality_seen {
  const dart_domain_locality_t *root; /* the first query's answer */
  int  num_nodes;                     /* node tags listed */
  int  num_units;                     /* units below the root */
  char my_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  char hosts[MAX_UNITS][DART_LOCALITY_HOST_MAX_SIZE];
};

static struct locality_seen seen[THREADS];

/* What one round of the locality case reads into `s`. */
static void read_locality(struct locality_seen *s)
{
  dart_domain_locality_t *root = NULL;
  ASSERT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  ASSERT(root != NULL);
  s->root = root;
  dart_domain_locality_t *copy = NULL;
  ASSERT_OK(dart_domain_clone(root, &copy));
  s->num_units = copy->num_units;
  dart_unit_locality_t *mine = NULL;
  ASSERT_OK(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(me), &mine));
  memcpy(s->my_tag, mine->domain_tag, sizeof s->my_tag);
  /* The unit's domain is found in the copy under the same tag. */
  dart_domain_locality_t *leaf = NULL;
  ASSERT_OK(dart_domain_find(copy, mine->domain_tag, &leaf));
  ASSERT(leaf != NULL);
  ASSERT_EQ(strcmp(leaf->domain_tag, mine->domain_tag), 0);
  int tags = 0;
  char **names = NULL;
  ASSERT_OK(dart_domain_scope_tags(copy, DART_LOCALITY_SCOPE_NODE, &tags,
                                   &names));
  s->num_nodes = tags;
  /* The same node domains as pointers, in the copy and in the shared
   * tree that every thread reads at once: the tags in the same order. */
  const dart_domain_locality_t *trees[] = { copy, root };
  for (size_t k = 0; k < sizeof trees / sizeof trees[0]; ++k) {
    int count = -1;
    dart_domain_locality_t **nodes = NULL;
    ASSERT_OK(dart_domain_scope_domains(trees[k], DART_LOCALITY_SCOPE_NODE,
                                        &count, &nodes));
    ASSERT_EQ(count, tags);
    for (int i = 0; i < count; ++i) {
      ASSERT_EQ(nodes[i]->scope, DART_LOCALITY_SCOPE_NODE);
      ASSERT_EQ(strcmp(nodes[i]->domain_tag, names[i]), 0);
    }
    free(nodes);
  }
  for (int i = 0; i < tags; ++i) {
    free(names[i]);
  }
  free(names);
  for (int u = 0; u < n; ++u) {
    dart_unit_locality_t *loc = NULL;
    ASSERT_OK(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(u), &loc));
    ASSERT_EQ(loc->unit.id, u);
    memcpy(s->hosts[u], loc->hwinfo.host, sizeof s->hosts[u]);
  }
  ASSERT_OK(dart_domain_destroy(copy));
}

static bool same_locality(const struct locality_seen *a,
                          const struct locality_seen *b)
{
  if (a->root != b->root || a->num_nodes != b->num_nodes ||
      a->num_units != b->num_units ||
      strcmp(a->my_tag, b->my_tag) != 0) {
    return false;
  }
  for (int u = 0; u < n; ++u) {
    if (strcmp(a->hosts[u], b->hosts[u]) != 0) {
      return false;
    }
  }
  return true;
}

static void *locality_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  test_threads_line_up();
  dart_domain_locality_t *first = NULL;
  ASSERT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &first));
  ASSERT(first != NULL);
  read_locality(&seen[t]);
  ASSERT_MSG(seen[t].root == first,
             "thread %d: the team's domain moved from %p to %p", t,
             (const void *)first, (const void *)seen[t].root);
  for (long r = 1; r < rounds / 10; ++r) {
    struct locality_seen again;
    read_locality(&again);
    ASSERT_MSG(same_locality(&again, &seen[t]),
               "thread %d round %ld read another locality", t, r);
  }
  return NULL;
}

static void locality(void)
{
  ASSERT(n <= MAX_UNITS);
  test_threads_run(THREADS, locality_worker);
  struct locality_seen after;
  read_locality(&after);
  ASSERT_EQ(after.num_units, n);
  ASSERT(after.num_nodes >= 1 && after.num_nodes <= n);
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_MSG(same_locality(&seen[t], &after),
               "thread %d saw another tree (root %p, %d nodes) than the "
               "query after the threads (root %p, %d nodes)", t,
               (const void *)seen[t].root, seen[t].num_nodes,
               (const void *)after.root, after.num_nodes);
  }
}

/* ---- domain edits ------------------------------------------------------ */

/* What one round of the domain_edits case made, as text: every domain of
 * each tree depth-first with its tag, scope, level, position, units and
 * children, then the members of each locality group. Equal text, equal
 * trees and groups. */
enum { EDITS_TEXT = 16384 };

struct text {
  char   buf[EDITS_TEXT];
  size_t len;
};

static void say(struct text *out, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

static void say(struct text *out, const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  int k = vsnprintf(out->buf + out->len, sizeof out->buf - out->len, fmt,
                    args);
  va_end(args);
  ASSERT(k >= 0 && (size_t)k < sizeof out->buf - out->len);
  out->len += (size_t)k;
}

static void describe(struct text *out, const dart_domain_locality_t *d)
{
  say(out, "[%s s%d l%d i%d u", d->domain_tag, (int)d->scope, d->level,
      d->relative_index);
  for (int u = 0; u < d->num_units; ++u) {
    say(out, " %d", d->unit_ids[u].id);
  }
  for (int c = 0; c < d->num_domains; ++c) {
    ASSERT(d->children[c]->parent == d);
    describe(out, d->children[c]);
  }
  say(out, "]");
}

/* Frees the contents of a caller-owned domain that is no object of its
 * own (a part of dart_domain_split_scope): assigning an empty domain
 * releases the old contents. */
static void release_part(dart_domain_locality_t *part)
{
  dart_domain_locality_t *empty = NULL;
  ASSERT_OK(dart_domain_create(&empty));
  ASSERT_OK(dart_domain_assign(part, empty));
  ASSERT_OK(dart_domain_destroy(empty));
}

/* Every call that edits a caller-owned domain, on a copy of the team's
 * tree, and a locality split of all units; the result into `out`. No
 * STAGE: its buffer is the process's, and threads run this at once (a
 * failure's line names the step). */
static void edit_round(struct text *out)
{
  out->len = 0;
  out->buf[0] = '\0';
  dart_domain_locality_t *root = NULL;
  ASSERT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  dart_domain_locality_t *copy = NULL;
  ASSERT_OK(dart_domain_clone(root, &copy));

  /* split_scope */
  dart_domain_locality_t parts[2];
  ASSERT_OK(dart_domain_split_scope(copy, DART_LOCALITY_SCOPE_CORE, 2,
                                    parts));
  for (int p = 0; p < 2; ++p) {
    describe(out, &parts[p]);
    release_part(&parts[p]);
  }

  /* group the first and the last core */
  int cores = 0;
  char **tags = NULL;
  ASSERT_OK(dart_domain_scope_tags(copy, DART_LOCALITY_SCOPE_CORE, &cores,
                                   &tags));
  ASSERT_EQ(cores, n);
  const char *ends[] = { tags[0], tags[cores - 1] };
  char group_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  ASSERT_OK(dart_domain_group(copy, 2, ends, group_tag));
  describe(out, copy);

  /* select, exclude */
  /* A second copy keeps only the group; the first loses it. */
  dart_domain_locality_t *kept = NULL;
  ASSERT_OK(dart_domain_clone(copy, &kept));
  const char *group_only[] = { group_tag };
  ASSERT_OK(dart_domain_select(kept, 1, group_only));
  describe(out, kept);
  ASSERT_OK(dart_domain_exclude(copy, 1, group_only));
  describe(out, copy);

  /* add_subdomain, move_subdomain */
  dart_domain_locality_t *added = NULL;
  ASSERT_OK(dart_domain_create(&added));
  added->scope = DART_LOCALITY_SCOPE_GROUP;
  ASSERT_OK(dart_domain_add_subdomain(copy, added, -1));
  /* `added` now belongs to the tree: under the first child from here. */
  if (copy->num_domains > 1) {
    ASSERT_OK(dart_domain_move_subdomain(added, copy->children[0], 0));
  }
  describe(out, copy);

  /* assign */
  ASSERT_OK(dart_domain_assign(kept, copy));
  describe(out, kept);
  ASSERT_OK(dart_domain_destroy(kept));
  ASSERT_OK(dart_domain_destroy(copy));
  for (int i = 0; i < cores; ++i) {
    free(tags[i]);
  }
  free(tags);

  /* group_locality_split */
  dart_group_t all = DART_GROUP_NULL;
  ASSERT_OK(dart_group_create(&all));
  for (int u = 0; u < n; ++u) {
    ASSERT_OK(dart_group_addmember(all, DART_GLOBAL_UNIT_ID(u)));
  }
  dart_group_t split[2] = { DART_GROUP_NULL, DART_GROUP_NULL };
  size_t made = 0;
  ASSERT_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CORE, 2,
                                      &made, split));
  ASSERT_EQ(made, 2);
  size_t total = 0;
  for (size_t g = 0; g < made; ++g) {
    size_t size = 0;
    ASSERT_OK(dart_group_size(split[g], &size));
    dart_global_unit_t members[MAX_UNITS];
    if (size > 0) {
      ASSERT_OK(dart_group_getmembers(split[g], members));
    }
    say(out, "{");
    for (size_t i = 0; i < size; ++i) {
      say(out, " %d", members[i].id);
    }
    say(out, " }");
    total += size;
    ASSERT_OK(dart_group_destroy(&split[g]));
  }
  ASSERT_EQ(total, (size_t)n);
  ASSERT_OK(dart_group_destroy(&all));
}

static struct text edits_expected;

static void *edit_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  struct text *got = xmalloc(sizeof *got);
  test_threads_line_up();
  for (long r = 0; r < rounds / 10; ++r) {
    edit_round(got);
    ASSERT_MSG(strcmp(got->buf, edits_expected.buf) == 0,
               "thread %d round %ld made %s where one thread alone made %s",
               t, r, got->buf, edits_expected.buf);
  }
  free(got);
  return NULL;
}

/* The expected text is what one thread makes alone, first. */
static void domain_edits(void)
{
  ASSERT(n <= MAX_UNITS);
  edit_round(&edits_expected);
  test_threads_run(THREADS, edit_worker);
}

/* ---- groups ------------------------------------------------------------ */

static void expect_members(dart_group_t g, const int *units, size_t count)
{
  size_t size = 0;
  ASSERT_OK(dart_group_size(g, &size));
  ASSERT_EQ(size, count);
  dart_global_unit_t got[MAX_UNITS + 1];
  if (count > 0) {
    ASSERT_OK(dart_group_getmembers(g, got));
  }
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(got[i].id, units[i]);
  }
}

static void *group_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  test_threads_line_up();
  for (long r = 0; r < rounds; ++r) {
    /* evens: units u with (u + t + r) even; all: every unit. */
    dart_group_t evens = DART_GROUP_NULL, all = DART_GROUP_NULL;
    ASSERT_OK(dart_group_create(&evens));
    ASSERT_OK(dart_group_create(&all));
    int even_units[MAX_UNITS], all_units[MAX_UNITS];
    size_t num_even = 0;
    for (int u = n - 1; u >= 0; --u) { /* out of order on purpose */
      ASSERT_OK(dart_group_addmember(all, DART_GLOBAL_UNIT_ID(u)));
      if ((u + t + r) % 2 == 0) {
        ASSERT_OK(dart_group_addmember(evens, DART_GLOBAL_UNIT_ID(u)));
      }
    }
    for (int u = 0; u < n; ++u) {
      all_units[u] = u;
      if ((u + t + r) % 2 == 0) {
        even_units[num_even++] = u;
      }
    }
    dart_group_t copy = DART_GROUP_NULL, both = DART_GROUP_NULL,
                 common = DART_GROUP_NULL;
    ASSERT_OK(dart_group_clone(evens, &copy));
    ASSERT_OK(dart_group_union(copy, all, &both));
    ASSERT_OK(dart_group_intersect(evens, all, &common));
    expect_members(copy, even_units, num_even);
    expect_members(both, all_units, (size_t)n);
    expect_members(common, even_units, num_even);
    int32_t is = -1;
    ASSERT_OK(dart_group_ismember(common, DART_GLOBAL_UNIT_ID(me), &is));
    ASSERT_EQ(is != 0, (me + t + r) % 2 == 0);
    /* Two halves of `all`: ceil(n / 2) members, then the rest. */
    dart_group_t halves[2] = { DART_GROUP_NULL, DART_GROUP_NULL };
    size_t made = 0;
    ASSERT_OK(dart_group_split(all, 2, &made, halves));
    ASSERT_EQ(made, 2);
    size_t first = ((size_t)n + 1) / 2;
    expect_members(halves[0], all_units, first);
    expect_members(halves[1], all_units + first, (size_t)n - first);
    /* `both` loses the odd units again (one of them twice: no error). */
    for (int u = 0; u < n; ++u) {
      if ((u + t + r) % 2 != 0) {
        ASSERT_OK(dart_group_delmember(both, DART_GLOBAL_UNIT_ID(u)));
        ASSERT_OK(dart_group_delmember(both, DART_GLOBAL_UNIT_ID(u)));
      }
    }
    expect_members(both, even_units, num_even);
    dart_group_t *every[] = { &evens, &all,       &copy,     &both,
                              &common, &halves[0], &halves[1] };
    for (size_t i = 0; i < sizeof every / sizeof every[0]; ++i) {
      ASSERT_OK(dart_group_destroy(every[i]));
      ASSERT(*every[i] == DART_GROUP_NULL);
    }
  }
  return NULL;
}

static void groups(void)
{
  ASSERT(n <= MAX_UNITS);
  test_threads_run(THREADS, group_worker);
}

/* ---- two-sided --------------------------------------------------------- */

enum { MAX_WORDS = 8192, TAG_BASE = 700 };

static long word_of(int unit, int t, long r, size_t k)
{
  return ((long)unit << 48) ^ ((long)t << 40) ^ (r << 16) ^ (long)k;
}

/* 1 to MAX_WORDS words, the same on both sides of round r. */
static size_t words_of(int t, long r)
{
  static const size_t sizes[] = { 1, 3, 64, 1000, MAX_WORDS };
  return sizes[(size_t)(r + t) % (sizeof sizes / sizeof sizes[0])];
}

static void *two_sided_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  int tag = TAG_BASE + t;
  long *out = xmalloc(MAX_WORDS * sizeof *out);
  long *in = xmalloc(MAX_WORDS * sizeof *in);
  test_threads_line_up();
  for (long r = 0; r < team_rounds(); ++r) {
    size_t words = words_of(t, r);
    for (size_t k = 0; k < words; ++k) {
      out[k] = word_of(me, t, r, k);
    }
    memset(in, 0, words * sizeof *in);
    if (r % 2 == 0) {
      ASSERT_OK(dart_sendrecv(out, words, DART_TYPE_LONG, tag,
                              DART_GLOBAL_UNIT_ID(next), in, words,
                              DART_TYPE_LONG, tag,
                              DART_GLOBAL_UNIT_ID(prev)));
    } else if (me % 2 == 0) {
      /* A blocking send first on even units, a receive first on odd
       * ones: the ring cannot block on messages too large to buffer. */
      ASSERT_OK(dart_send(out, words, DART_TYPE_LONG, tag,
                          DART_GLOBAL_UNIT_ID(next)));
      ASSERT_OK(dart_recv(in, words, DART_TYPE_LONG, tag,
                          DART_GLOBAL_UNIT_ID(prev)));
    } else {
      ASSERT_OK(dart_recv(in, words, DART_TYPE_LONG, tag,
                          DART_GLOBAL_UNIT_ID(prev)));
      ASSERT_OK(dart_send(out, words, DART_TYPE_LONG, tag,
                          DART_GLOBAL_UNIT_ID(next)));
    }
    for (size_t k = 0; k < words; ++k) {
      ASSERT_MSG(in[k] == word_of(prev, t, r, k),
                 "thread %d round %ld: word %zu of %zu from unit %d is "
                 "%#lx, expected %#lx", t, r, k, words, prev,
                 (unsigned long)in[k],
                 (unsigned long)word_of(prev, t, r, k));
    }
  }
  free(out);
  free(in);
  return NULL;
}

static void two_sided(void)
{
  /* A single unit would send to itself, which a blocking send of a
   * message too large to buffer cannot. */
  if (n < 2) {
    return;
  }
  test_threads_run(THREADS, two_sided_worker);
  ASSERT_OK(dart_barrier(DART_TEAM_ALL));
}

/* ---- collectives -------------------------------------------------------- */

enum { VEC = 8, BCAST = 16 };

static void *collective_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  dart_team_t team = teams[t];
  test_threads_line_up();
  for (long r = 0; r < team_rounds(); ++r) {
    long mine[VEC], sum[VEC], max[VEC];
    for (int k = 0; k < VEC; ++k) {
      mine[k] = (long)(me + 1) * (r + 1) + k * 1000 + t;
    }
    ASSERT_OK(dart_allreduce(mine, sum, VEC, DART_TYPE_LONG, DART_OP_SUM,
                             team));
    int root = (int)((r + t) % n);
    memset(max, 0, sizeof max);
    ASSERT_OK(dart_reduce(mine, max, VEC, DART_TYPE_LONG, DART_OP_MAX,
                          DART_TEAM_UNIT_ID(root), team));
    long units_sum = (long)n * (n + 1) / 2;
    for (int k = 0; k < VEC; ++k) {
      ASSERT_EQ(sum[k], units_sum * (r + 1) + (long)n * (k * 1000 + t));
      if (me == root) {
        ASSERT_EQ(max[k], (long)n * (r + 1) + k * 1000 + t);
      }
    }
    int values[BCAST];
    for (int k = 0; k < BCAST; ++k) {
      values[k] = me == root ? (int)(root * 100 + r * 7 + k + t) : -1;
    }
    ASSERT_OK(dart_bcast(values, BCAST, DART_TYPE_INT,
                         DART_TEAM_UNIT_ID(root), team));
    for (int k = 0; k < BCAST; ++k) {
      ASSERT_EQ(values[k], root * 100 + r * 7 + k + t);
    }
    int pair[2] = { me, (int)r + t };
    int gathered[2 * MAX_UNITS];
    ASSERT_OK(dart_allgather(pair, gathered, 2, DART_TYPE_INT, team));
    for (int u = 0; u < n; ++u) {
      ASSERT_EQ(gathered[2 * u], u);
      ASSERT_EQ(gathered[2 * u + 1], r + t);
    }
    ASSERT_OK(dart_barrier(team));
  }
  return NULL;
}

static void collectives(void)
{
  ASSERT(n <= MAX_UNITS);
  clone_teams();
  test_threads_run(THREADS, collective_worker);
  destroy_teams();
}

/* ---- derived types and operations --------------------------------------- */

enum { PORTION = 64, BLOCKS = 8, BLOCK_LEN = 2, STRIDE = 4 };

static int type_value(int unit, int t, long r, int k)
{
  return unit * 1000000 + t * 100000 + (int)(r % 1000) * 100 + k;
}

/* inout = in + inout + the thread's salt: n - 1 combines of n
 * contributions add the salt n - 1 times, whatever the reduction tree. */
static void salted_sum(const void *in, void *inout, size_t len, void *salt)
{
  const int *a = in;
  int *b = inout;
  for (size_t i = 0; i < len; ++i) {
    b[i] += a[i] + *(const int *)salt;
  }
}

static int salts[THREADS];

struct triple {
  int a, b, c;
};

static void *types_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  dart_team_t team = teams[t];
  int tme, tn;
  test_team_position(team, &tme, &tn);
  int next = (tme + 1) % tn, prev = (tme + tn - 1) % tn;
  salts[t] = t + 1;
  dart_gptr_t seg;
  ASSERT_OK(dart_team_memalloc_aligned(team, PORTION, DART_TYPE_INT, &seg));
  int *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(seg, tme, 0), (void **)&mine));
  test_threads_line_up();
  for (long r = 0; r < team_rounds(); ++r) {
    for (int k = 0; k < PORTION; ++k) {
      mine[k] = -1;
    }
    ASSERT_OK(dart_barrier(team));
    /* Contiguous ints into every STRIDE-th pair of the next unit. */
    dart_datatype_t strided = DART_TYPE_UNDEFINED;
    ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, STRIDE, BLOCK_LEN,
                                       &strided));
    int out[BLOCKS * BLOCK_LEN];
    for (int k = 0; k < BLOCKS * BLOCK_LEN; ++k) {
      out[k] = type_value(tme, t, r, k);
    }
    dart_gptr_t there = gptr_at(seg, next, 0);
    ASSERT_OK(dart_put_blocking(there, out, BLOCKS * BLOCK_LEN, DART_TYPE_INT,
                                strided));
    ASSERT_OK(dart_flush(there));
    ASSERT_OK(dart_type_destroy(&strided));
    ASSERT_OK(dart_barrier(team));
    for (int k = 0; k < PORTION; ++k) {
      int block = k / STRIDE, at = k % STRIDE;
      int expect = block < BLOCKS && at < BLOCK_LEN
                       ? type_value(prev, t, r, block * BLOCK_LEN + at)
                       : -1;
      ASSERT_MSG(mine[k] == expect, "thread %d round %ld: int %d is %d, "
                 "expected %d", t, r, k, mine[k], expect);
    }
    /* A burst of types at once, each told apart by its stride: two
     * threads handed one id would write one another's layout. */
    enum { BURST = 16 };
    dart_datatype_t burst[BURST];
    int strides[BURST];
    for (int q = 0; q < BURST; ++q) {
      strides[q] = 2 + (t + q) % 6;
      ASSERT_OK(dart_type_create_strided(DART_TYPE_INT, (size_t)strides[q],
                                         1, &burst[q]));
    }
    for (int q = 0; q < BURST; ++q) {
      int stride = strides[q], four[4] = { q, q + 1, q + 2, q + 3 };
      dart_gptr_t scratch;
      ASSERT_OK(dart_memalloc(PORTION, DART_TYPE_INT, &scratch));
      int *dst = NULL;
      ASSERT_OK(dart_gptr_getaddr(scratch, (void **)&dst));
      for (int k = 0; k < PORTION; ++k) {
        dst[k] = -1;
      }
      ASSERT_OK(dart_put_blocking(scratch, four, 4, DART_TYPE_INT,
                                  burst[q]));
      for (int k = 0; k < PORTION; ++k) {
        int expect = k % stride == 0 && k / stride < 4 ? q + k / stride : -1;
        ASSERT_MSG(dst[k] == expect, "thread %d: type %d of the burst "
                   "(stride %d) put %d at int %d, expected %d", t, q, stride,
                   dst[k], k, expect);
      }
      ASSERT_OK(dart_memfree(scratch));
    }
    for (int q = 0; q < BURST; ++q) {
      ASSERT_OK(dart_type_destroy(&burst[q]));
    }
    /* Two blocks of my portion, read back through an indexed type. */
    dart_datatype_t indexed = DART_TYPE_UNDEFINED;
    const size_t lens[2] = { 1, 3 }, offs[2] = { 5, 20 };
    ASSERT_OK(dart_type_create_indexed(DART_TYPE_INT, 2, lens, offs,
                                       &indexed));
    int got[4] = { 0, 0, 0, 0 };
    ASSERT_OK(dart_get_blocking(got, gptr_at(seg, tme, 0), 4, indexed,
                                DART_TYPE_INT));
    ASSERT_OK(dart_type_destroy(&indexed));
    const int at[4] = { 5, 20, 21, 22 };
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(got[i], mine[at[i]]);
    }
    /* An operation of the thread's own, with its user data. */
    dart_operation_t op;
    ASSERT_OK(dart_op_create(salted_sum, &salts[t], true, DART_TYPE_INT,
                             false, &op));
    int in[4], sum[4];
    for (int i = 0; i < 4; ++i) {
      in[i] = tme * 10 + i;
    }
    ASSERT_OK(dart_allreduce(in, sum, 4, DART_TYPE_INT, op, team));
    ASSERT_OK(dart_op_destroy(&op));
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(sum[i], 10 * tn * (tn - 1) / 2 + tn * i + (tn - 1) * (t + 1));
    }
    /* A custom type of 12 bytes, broadcast from a rotating root. */
    dart_datatype_t custom = DART_TYPE_UNDEFINED;
    ASSERT_OK(dart_type_create_custom(sizeof(struct triple), &custom));
    int root = (int)((r + t) % tn);
    struct triple trip[2] = { { -1, -1, -1 }, { -1, -1, -1 } };
    if (tme == root) {
      trip[0] = (struct triple){ root, t, (int)r };
      trip[1] = (struct triple){ (int)r, t, root };
    }
    ASSERT_OK(dart_bcast(trip, 2, custom, DART_TEAM_UNIT_ID(root), team));
    ASSERT_OK(dart_type_destroy(&custom));
    ASSERT(trip[0].a == root && trip[0].b == t && trip[0].c == (int)r);
    ASSERT(trip[1].a == (int)r && trip[1].b == t && trip[1].c == root);
  }
  ASSERT_OK(dart_barrier(team));
  ASSERT_OK(dart_team_memfree(seg));
  return NULL;
}

static void types_and_ops(void)
{
  clone_teams();
  test_threads_run(THREADS, types_worker);
  destroy_teams();
}

/* ---- segment metadata -------------------------------------------------- */

enum { SEG_WORDS = 32, BLOCK_WORDS = 16 };

static uint16_t flags_of(int t, long r)
{
  return (uint16_t)(0x1000 + t * 0x100 + r % 0x100);
}

/* The native address of `words` longs of mine at `here`, checked both
 * ways: what is stored through it is what dart_get_blocking reads, and
 * setaddr of its last word gives that word's offset. */
static void check_native(dart_gptr_t here, size_t words, long seed)
{
  long *base = NULL;
  ASSERT_OK(dart_gptr_getaddr(here, (void **)&base));
  ASSERT(base != NULL);
  for (size_t k = 0; k < words; ++k) {
    base[k] = seed + (long)k;
  }
  long got[SEG_WORDS];
  ASSERT_OK(dart_get_blocking(got, here, words, DART_TYPE_LONG,
                              DART_TYPE_LONG));
  for (size_t k = 0; k < words; ++k) {
    ASSERT_EQ(got[k], seed + (long)k);
  }
  dart_gptr_t back = here;
  back.addr_or_offs.offset = 0;
  ASSERT_OK(dart_gptr_setaddr(&back, base + words - 1));
  ASSERT_EQ(back.addr_or_offs.offset,
            here.addr_or_offs.offset + (words - 1) * sizeof(long));
}

/* A collective allocation takes some 20 ms with 4 threads per unit on 2
 * cores: a segment lives for INNER rounds of the local checks. */
enum { INNER = 10 };

/* Memory each thread registers on its team
 * (dart_team_memregister_aligned, MT-team); deregistered after the
 * threads (dart_team_memderegister is MT-none). */
static long registered[THREADS][SEG_WORDS];
static dart_gptr_t registrations[THREADS];

static void *segment_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  dart_team_t team = teams[t];
  int tme, tn;
  test_team_position(team, &tme, &tn);
  test_threads_line_up();
  ASSERT_OK(dart_team_memregister_aligned(team, SEG_WORDS, DART_TYPE_LONG,
                                          registered[t],
                                          &registrations[t]));
  dart_gptr_t reg = gptr_at(registrations[t], tme, 0);
  void *native = NULL;
  ASSERT_OK(dart_gptr_getaddr(reg, &native));
  ASSERT(native == (void *)registered[t]);
  long segments = team_rounds() / INNER > 3 ? team_rounds() / INNER : 3;
  for (long s = 0; s < segments; ++s) {
    dart_gptr_t seg;
    ASSERT_OK(dart_team_memalloc_aligned(team, SEG_WORDS, DART_TYPE_LONG,
                                         &seg));
    dart_gptr_t mine = gptr_at(seg, tme, 0);
    uint16_t flags = 0xffff;
    ASSERT_OK(dart_gptr_getflags(mine, &flags));
    ASSERT_EQ(flags, 0);
    for (long i = 0; i < INNER; ++i) {
      long r = s * INNER + i;
      ASSERT_OK(dart_gptr_setflags(&mine, flags_of(t, r)));
      /* A local-pool block lives and dies inside the round. */
      dart_gptr_t block;
      ASSERT_OK(dart_memalloc(BLOCK_WORDS, DART_TYPE_LONG, &block));
      check_native(mine, SEG_WORDS, ((long)t << 32) + r * 100);
      check_native(block, BLOCK_WORDS, ((long)t << 32) + r * 100 + 50);
      check_native(reg, SEG_WORDS, ((long)t << 32) + r * 100 + 75);
      /* Another unit's memory has no native address here. */
      void *other = (void *)&other;
      ASSERT_OK(dart_gptr_getaddr(gptr_at(seg, (tme + 1) % tn, 0),
                                  &other));
      if (tn > 1) {
        ASSERT(other == NULL);
      }
      ASSERT_OK(dart_gptr_getflags(mine, &flags));
      ASSERT_EQ(flags, flags_of(t, r));
      ASSERT_OK(dart_memfree(block));
    }
    ASSERT_OK(dart_barrier(team));
    ASSERT_OK(dart_team_memfree(seg));
  }
  return NULL;
}

static void segment_meta(void)
{
  clone_teams();
  test_threads_run(THREADS, segment_worker);
  for (int t = 0; t < THREADS; ++t) {
    ASSERT_OK(dart_team_memderegister(registrations[t]));
  }
  destroy_teams();
}

/* ---- segment table growth ---------------------------------------------- */

/* One thread allocates segment after segment on a team, so that the
 * team's table of segments grows (16, 32, 64 ids), while the others read
 * a segment of that team (native address, a get from the next unit): the
 * table must not move under them (model/segment.h). */
enum { GROWTH_SEGMENTS = 40, WATCH_WORDS = 16 };

static dart_team_t growth_team;
static dart_gptr_t watched;
static atomic_int growth_done;

static long watched_value(int unit, int i)
{
  return 1000L * unit + i;
}

static void *growth_worker(void *arg)
{
  int t = (int)(intptr_t)arg;
  test_threads_line_up();
  if (t == 0) {
    dart_gptr_t segs[GROWTH_SEGMENTS];
    for (int k = 0; k < GROWTH_SEGMENTS; ++k) {
      ASSERT_OK(dart_team_memalloc_aligned(growth_team, 4, DART_TYPE_LONG,
                                           &segs[k]));
    }
    ASSERT_OK(dart_barrier(growth_team));
    for (int k = GROWTH_SEGMENTS - 1; k >= 0; --k) {
      ASSERT_OK(dart_team_memfree(segs[k]));
    }
    atomic_store(&growth_done, 1);
    return NULL;
  }
  int next = (me + 1) % n;
  for (long r = 0; !atomic_load(&growth_done) || r < 10; ++r) {
    int i = (int)((r + t) % WATCH_WORDS);
    long *mine = NULL;
    ASSERT_OK(dart_gptr_getaddr(gptr_at(watched, me, 0), (void **)&mine));
    ASSERT(mine != NULL);
    ASSERT_EQ(mine[i], watched_value(me, i));
    long theirs = -1;
    ASSERT_OK(dart_get_blocking(&theirs,
                                gptr_at(watched, next, (uint64_t)i *
                                                       sizeof(long)),
                                1, DART_TYPE_LONG, DART_TYPE_LONG));
    ASSERT_EQ(theirs, watched_value(next, i));
    /* A handle made while thread 0's frees walk the table of handles
     * (rma/onesided.c, onesided_segment_freed). */
    dart_handle_t h = DART_HANDLE_NULL;
    theirs = -1;
    ASSERT_OK(dart_get_handle(&theirs,
                              gptr_at(watched, next, (uint64_t)i *
                                                     sizeof(long)),
                              1, DART_TYPE_LONG, DART_TYPE_LONG, &h));
    ASSERT_OK(dart_wait(&h));
    ASSERT_EQ(theirs, watched_value(next, i));
  }
  return NULL;
}

static void segment_table_growth(void)
{
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &growth_team));
  ASSERT_OK(dart_team_memalloc_aligned(growth_team, WATCH_WORDS,
                                       DART_TYPE_LONG, &watched));
  long *mine = NULL;
  ASSERT_OK(dart_gptr_getaddr(gptr_at(watched, me, 0), (void **)&mine));
  for (int i = 0; i < WATCH_WORDS; ++i) {
    mine[i] = watched_value(me, i);
  }
  ASSERT_OK(dart_barrier(growth_team));
  atomic_store(&growth_done, 0);
  test_threads_run(THREADS, growth_worker);
  ASSERT_OK(dart_barrier(growth_team));
  ASSERT_OK(dart_team_memfree(watched));
  ASSERT_OK(dart_team_destroy(&growth_team));
}

static void setup(int *argc, char ***argv)
{
  test_threads_start(argc, argv, &me, &n, &rounds, ALARM_S);
}

static const struct test_case cases[] = {
  { "locality", locality },
  { "domain_edits", domain_edits },
  { "groups", groups },
  { "two_sided", two_sided },
  { "collectives", collectives },
  { "segment_meta", segment_meta },
  { "types_and_ops", types_and_ops },
  { "segment_table_growth", segment_table_growth },
};

int main(int argc, char **argv)
{
  return test_run_with(argc, argv, TEST_CASES(cases), setup,
                       test_dart_teardown);
}
