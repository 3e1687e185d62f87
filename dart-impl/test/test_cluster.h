/* The layout a run across the virtual cluster was launched with
 * (scripts/cluster.sh exports VCLUSTER_HOSTS="node0:2,node1:2": each real
 * host's name and its units, which hold consecutive global ids in that
 * order). Tests compare the runtime's and MPI's node views with it; outside
 * the cluster the variable is unset and test_cluster_get returns 0. */
#ifndef DART_TEST_CLUSTER_H
#define DART_TEST_CLUSTER_H

#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_CLUSTER_MAX_HOSTS 16

struct test_cluster {
  int  hosts;                               /* 0: not a cluster run */
  char name[TEST_CLUSTER_MAX_HOSTS][64];
  int  units[TEST_CLUSTER_MAX_HOSTS];
};

static inline int test_cluster_get(struct test_cluster *c)
{
  memset(c, 0, sizeof *c);
  const char *spec = getenv("VCLUSTER_HOSTS");
  if (spec == NULL || spec[0] == '\0') {
    return 0;
  }
  const char *at = spec;
  while (*at != '\0') {
    ASSERT(c->hosts < TEST_CLUSTER_MAX_HOSTS);
    const char *colon = strchr(at, ':');
    ASSERT(colon != NULL && colon > at &&
           (size_t)(colon - at) < sizeof c->name[0]);
    memcpy(c->name[c->hosts], at, (size_t)(colon - at));
    char *end = NULL;
    long units = strtol(colon + 1, &end, 10);
    ASSERT(end != colon + 1 && units > 0 && (*end == ',' || *end == 0));
    c->units[c->hosts++] = (int)units;
    at = *end == ',' ? end + 1 : end;
  }
  return c->hosts;
}

/* The host index of a global unit (blocks in rank order). */
static inline int test_cluster_host_of(const struct test_cluster *c, int unit)
{
  for (int h = 0, first = 0; h < c->hosts; first += c->units[h++]) {
    if (unit < first + c->units[h]) {
      return h;
    }
  }
  ASSERT(!"unit beyond the cluster layout");
  return -1;
}

/* Checks the layout against the run: as many units as it lists, and this
 * process really on the host it names. */
static inline void test_cluster_check_self(const struct test_cluster *c,
                                           int me, int n)
{
  int total = 0;
  for (int h = 0; h < c->hosts; ++h) {
    total += c->units[h];
  }
  ASSERT_EQ(total, n);
  char host[256] = "";
  ASSERT_EQ(gethostname(host, sizeof host), 0);
  ASSERT(strcmp(host, c->name[test_cluster_host_of(c, me)]) == 0);
}

#endif
