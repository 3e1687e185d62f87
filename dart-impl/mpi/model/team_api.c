/* The dart_team_* calls: thin validation over team.c. */
#include "mpi/core/runtime.h"
#include "mpi/model/group.h"
#include "mpi/model/team.h"

dart_ret_t dart_team_get_group(dart_team_t teamid, dart_group_t *group)
{
  REQUIRE_INIT();
  if (group == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "group is NULL");
  }
  *group = DART_GROUP_NULL;
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  *group = group_new(team->global_of, (size_t)team->size);
  if (*group == NULL) {
    return report_error(DART_ERR_NOMEM, __func__, "out of memory");
  }
  return DART_OK;
}

dart_ret_t dart_team_create(dart_team_t teamid, const dart_group_t group,
                            dart_team_t *newteam)
{
  REQUIRE_INIT();
  if (newteam == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "newteam is NULL");
  }
  *newteam = DART_TEAM_NULL;
  struct team *parent = team_lookup_or_report(__func__, teamid);
  if (parent == NULL) {
    return DART_ERR_INVAL;
  }
  /* A NULL group means "I am not a member" (dart_team_create,
   * dart_team_group.h): take part. */
  return team_create(__func__, parent, group ? group->members : NULL,
                     group ? group->size : 0, group != NULL, newteam);
}

dart_ret_t dart_team_clone(dart_team_t teamid, dart_team_t *newteam)
{
  REQUIRE_INIT();
  if (newteam == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "newteam is NULL");
  }
  *newteam = DART_TEAM_NULL;
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  return team_create(__func__, team, team->global_of, (size_t)team->size,
                     true, newteam);
}

dart_ret_t dart_team_destroy(dart_team_t *teamid)
{
  REQUIRE_INIT();
  if (teamid == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "teamid is NULL");
  }
  if (*teamid == DART_TEAM_NULL) {
    return DART_OK;
  }
  if (*teamid == DART_TEAM_ALL) {
    return report_error(DART_ERR_INVAL, __func__,
                        "DART_TEAM_ALL is destroyed by dart_exit only");
  }
  struct team *team = team_lookup_or_report(__func__, *teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  dart_ret_t ret = team_destroy(__func__, team);
  *teamid = DART_TEAM_NULL;
  return ret;
}

dart_ret_t dart_team_myid(dart_team_t teamid, dart_team_unit_t *myid)
{
  REQUIRE_INIT();
  if (myid == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "myid is NULL");
  }
  myid->id = DART_UNDEFINED_UNIT_ID;
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  myid->id = team->my_rank;
  return DART_OK;
}

dart_ret_t dart_team_size(dart_team_t teamid, size_t *size)
{
  REQUIRE_INIT();
  if (size == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "size is NULL");
  }
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  *size = (size_t)team->size;
  return DART_OK;
}

dart_ret_t dart_team_unit_l2g(dart_team_t teamid, dart_team_unit_t localid,
                              dart_global_unit_t *globalid)
{
  REQUIRE_INIT();
  if (globalid == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "globalid is NULL");
  }
  globalid->id = DART_UNDEFINED_UNIT_ID;
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  if (localid.id < 0 || localid.id >= team->size) {
    return report_error(DART_ERR_INVAL, __func__,
                        "unit %d is not in [0, %d) of team %d",
                        (int)localid.id, team->size, (int)teamid);
  }
  globalid->id = team->global_of[localid.id];
  return DART_OK;
}

dart_ret_t dart_team_unit_g2l(dart_team_t teamid, dart_global_unit_t globalid,
                              dart_team_unit_t *localid)
{
  REQUIRE_INIT();
  if (localid == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "localid is NULL");
  }
  localid->id = DART_UNDEFINED_UNIT_ID;
  struct team *team = team_lookup_or_report(__func__, teamid);
  if (team == NULL) {
    return DART_ERR_INVAL;
  }
  /* Not a member (or not a unit at all): DART_OK with a negative id. */
  localid->id = team_rank_of_global(team, globalid.id);
  return DART_OK;
}
