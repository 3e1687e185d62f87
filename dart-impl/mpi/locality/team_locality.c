/* Team locality: dart_team_locality_init/finalize, dart_domain_team_locality
 * and dart_unit_locality. Every unit reads all members' records from the
 * node database, so building is local; it is collective only in name.
 * DART_TEAM_ALL's data is built on first use (the API has dart_init build
 * it; DASH queries it without calling init), other teams need
 * dart_team_locality_init as dart_locality.h says. */
#include "mpi/locality/team_locality.h"
#include "mpi/bootstrap/unit_records.h"
#include "mpi/core/runtime.h"
#include "mpi/locality/domain.h"
#include "mpi/locality/tree.h"

#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart_team_group.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Serialises lazy builds of DART_TEAM_ALL's data by concurrent
 * (MT-safe) queries. */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

void team_locality_free(struct team *team)
{
  struct team_locality *loc = team->locality;
  if (loc != NULL) {
    dart_domain_destroy(loc->root);
    free(loc->units);
    free(loc);
    team->locality = NULL;
  }
}

static dart_ret_t gather_records(const char *call, const struct team *team,
                                 struct unit_record *records)
{
  for (int i = 0; i < team->size; ++i) {
    dart_ret_t ret = unit_record_get(team->global_of[i], &records[i]);
    if (ret != DART_OK) {
      return report_error(ret, call,
                          "no locality record of unit %d (team %d)",
                          (int)team->global_of[i], (int)team->id);
    }
  }
  return DART_OK;
}

static dart_ret_t build(const char *call, struct team *team)
{
  struct unit_record *records = malloc((size_t)team->size * sizeof *records);
  char (*tags)[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE] =
    malloc((size_t)team->size * sizeof *tags);
  struct team_locality *loc = calloc(1, sizeof *loc);
  dart_ret_t ret = DART_OK;
  if (loc != NULL) {
    loc->units = malloc((size_t)team->size * sizeof *loc->units);
  }
  if (records == NULL || tags == NULL || loc == NULL || loc->units == NULL) {
    ret = report_error(DART_ERR_NOMEM, call, "out of memory");
    goto out;
  }
  ret = gather_records(call, team, records);
  if (ret == DART_OK) {
    ret = locality_tree_build(records, team->size, team->id, &loc->root,
                              tags);
  }
  if (ret != DART_OK) {
    goto out;
  }
  for (int i = 0; i < team->size; ++i) {
    dart_unit_locality_t *u = &loc->units[i];
    memset(u, 0, sizeof *u);
    u->unit.id = i;
    u->team    = team->id;
    u->hwinfo  = records[i].hwinfo;
    memcpy(u->domain_tag, tags[i], sizeof u->domain_tag);
  }
  __atomic_store_n(&team->locality, loc, __ATOMIC_RELEASE);
  loc = NULL;
out:
  if (loc != NULL) {
    free(loc->units);
    free(loc);
  }
  free(records);
  free(tags);
  return ret;
}

static dart_ret_t build_once(const char *call, struct team *team)
{
  pthread_mutex_lock(&build_lock);
  dart_ret_t ret = team->locality != NULL ? DART_OK : build(call, team);
  pthread_mutex_unlock(&build_lock);
  return ret;
}

/* The locality data of team `id`, building DART_TEAM_ALL's on demand. */
static dart_ret_t team_locality_of(const char *call, dart_team_t id,
                                   struct team_locality **out)
{
  struct team *team = team_lookup_or_report(call, id);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  *out = __atomic_load_n(&team->locality, __ATOMIC_ACQUIRE);
  if (*out != NULL) {
    return DART_OK;
  }
  if (id != DART_TEAM_ALL) {
    return report_error(DART_ERR_INVAL, call,
                        "team %d has no locality data (call "
                        "dart_team_locality_init first)", (int)id);
  }
  dart_ret_t ret = build_once(call, team);
  *out = team->locality;
  return ret;
}

dart_ret_t dart_team_locality_init(dart_team_t team)
{
  REQUIRE_INIT();
  struct team *t = team_lookup_or_report(__func__, team);
  if (t == NULL) {
    return DART_ERR_INVAL;
  }
  return build_once(__func__, t);
}

dart_ret_t dart_team_locality_finalize(dart_team_t team)
{
  REQUIRE_INIT();
  struct team *t = team_lookup_or_report(__func__, team);
  if (t == NULL) {
    return DART_ERR_INVAL;
  }
  team_locality_free(t);
  return DART_OK;
}

dart_ret_t dart_domain_team_locality(dart_team_t team,
                                     const char *domain_tag,
                                     dart_domain_locality_t **team_domain_out)
{
  if (team_domain_out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "team_domain_out is NULL");
  }
  *team_domain_out = NULL;
  REQUIRE_INIT();
  if (domain_tag == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "domain_tag is NULL");
  }
  struct team_locality *loc = NULL;
  dart_ret_t ret = team_locality_of(__func__, team, &loc);
  if (ret != DART_OK) {
    return ret;
  }
  *team_domain_out = domain_lookup(loc->root, domain_tag);
  if (*team_domain_out == NULL) {
    return report_error(DART_ERR_NOTFOUND, __func__,
                        "team %d has no domain '%.*s'", (int)team,
                        (int)TAG_SIZE, domain_tag);
  }
  return DART_OK;
}

dart_ret_t dart_unit_locality(dart_team_t team, dart_team_unit_t unit,
                              dart_unit_locality_t **loc)
{
  if (loc == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "loc is NULL");
  }
  *loc = NULL;
  REQUIRE_INIT();
  struct team_locality *data = NULL;
  dart_ret_t ret = team_locality_of(__func__, team, &data);
  if (ret != DART_OK) {
    return ret;
  }
  int size = team_lookup(team)->size;
  if (unit.id < 0 || unit.id >= size) {
    return report_error(DART_ERR_INVAL, __func__,
                        "unit %d out of range (team %d has %d units)",
                        (int)unit.id, (int)team, size);
  }
  *loc = &data->units[unit.id];
  return DART_OK;
}
