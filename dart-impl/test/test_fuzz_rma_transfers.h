/* Machinery of test_fuzz_rma.c, part 2: valid, invalid and zero-count
 * put/get in every form of dart-if/include/dash/dart/if/
 * dart_communication.h, each checked against the shadow of the target
 * memory. Needs test_fuzz_rma_core.h. */
#include "test_fuzz_rma_core.h"

#ifndef DART_TEST_FUZZ_RMA_TRANSFERS_H
#define DART_TEST_FUZZ_RMA_TRANSFERS_H

/* ---- transfers ---------------------------------------------------------- */

enum form { PUT_BLOCKING, PUT_FLUSH, PUT_HANDLE, GET_BLOCKING, GET_FLUSH,
            GET_HANDLE };
static const char *const form_names[] = { "dart_put_blocking", "dart_put",
                                          "dart_put_handle",
                                          "dart_get_blocking", "dart_get",
                                          "dart_get_handle" };
static inline bool is_put(enum form f) { return f <= PUT_HANDLE; }

static inline void note(const char *how)
{
  size_t used = strlen(what);
  snprintf(what + used, sizeof what - used, ", then %s", how);
}

/* Completes a valid transfer in one of the ways dart_communication.h
 * offers. */
static inline void complete_transfer(enum form f, dart_gptr_t g,
                                     dart_handle_t h)
{
  dart_ret_t ret = DART_OK;
  int32_t done = 0;
  dart_handle_t arr[3] = { DART_HANDLE_NULL, h, DART_HANDLE_NULL };
  if (f == PUT_HANDLE || f == GET_HANDLE) {
    note(h == DART_HANDLE_NULL ? "(handle NULL)" : "(handle live)");
  }
  switch (f) {
  case PUT_BLOCKING:
  case GET_BLOCKING:
    break;
  case PUT_FLUSH:
    if (chance(50)) {
      note("dart_flush");
      ret = dart_flush(g);
    } else {
      note("dart_flush_all");
      ret = dart_flush_all(g);
    }
    break;
  case GET_FLUSH:
    switch (below(4)) {
    case 0: note("dart_flush_local"); ret = dart_flush_local(g); break;
    case 1:
      note("dart_flush_local_all");
      ret = dart_flush_local_all(g);
      break;
    case 2: note("dart_flush"); ret = dart_flush(g); break;
    default: note("dart_flush_all"); ret = dart_flush_all(g); break;
    }
    break;
  case PUT_HANDLE:
  case GET_HANDLE:
    switch (below(6)) {
    case 0:
      note("dart_wait");
      ret = dart_wait(&h);
      break;
    case 1:
      note("dart_test loop");
      while (ret == DART_OK && !done) {
        ret = dart_test(&h, &done);
      }
      break;
    case 2:
      note("dart_waitall");
      ret = dart_waitall(arr, 3);
      h = arr[1];
      break;
    case 3:
      note("dart_testall loop");
      while (ret == DART_OK && !done) {
        ret = dart_testall(arr, 3, &done);
      }
      h = arr[1];
      break;
    case 4:
      /* Locally complete, then a flush for the put's remote side. */
      if (chance(50)) {
        note("dart_wait_local");
        ret = dart_wait_local(&h);
      } else {
        note("dart_test_local loop");
        while (ret == DART_OK && !done) {
          ret = dart_test_local(&h, &done);
        }
      }
      if (ret == DART_OK && f == PUT_HANDLE) {
        note("dart_flush");
        ret = dart_flush(g);
      }
      break;
    default:
      /* Freed without waiting: a flush completes it. */
      note("dart_handle_free + dart_flush");
      ret = dart_handle_free(&h);
      if (ret == DART_OK) {
        ret = dart_flush(g);
      }
      break;
    }
    if (ret == DART_OK && h != DART_HANDLE_NULL) {
      FAIL("the handle was not consumed");
    }
    break;
  }
  if (ret != DART_OK) {
    FAIL("completing the transfer returned %d", (int)ret);
  }
}

static inline dart_ret_t issue(enum form f, dart_gptr_t g, void *buf, size_t n,
                        dart_datatype_t st, dart_datatype_t dt,
                        dart_handle_t *h, bool null_handle)
{
  dart_handle_t *hp = null_handle ? NULL : h;
  switch (f) {
  case PUT_BLOCKING: return dart_put_blocking(g, buf, n, st, dt);
  case PUT_FLUSH:    return dart_put(g, buf, n, st, dt);
  case PUT_HANDLE:   return dart_put_handle(g, buf, n, st, dt, hp);
  case GET_BLOCKING: return dart_get_blocking(buf, g, n, st, dt);
  case GET_FLUSH:    return dart_get(buf, g, n, st, dt);
  default:           return dart_get_handle(buf, g, n, st, dt, hp);
  }
}

static inline void describe_transfer(enum form f, int s, dart_gptr_t g,
                                     size_t n,
                              const struct ftype *st, const struct ftype *dt,
                              const char *kind)
{
  snprintf(what, sizeof what,
           "%s %s: %s segment, team %d segid %d unit %d offset %" PRIu64
           ", nelem %zu, src %s, dst %s", kind, form_names[f], seg_names[s],
           (int)g.teamid, (int)g.segid, (int)g.unitid, g.addr_or_offs.offset,
           n, st != NULL ? st->name : "(bad)",
           dt != NULL ? dt->name : "(bad)");
}

static inline void valid_transfer(void)
{
  enum form f = (enum form)below(6);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  const struct ftype *st, *dt;
  /* Mostly a basic type both sides (DASH's common case). */
  int family = chance(60) ? (int)below(NBASIC)
                          : (int[]){ 2, 2, 4, 100 }[below(4)];
  st = pick_in_family(family);
  dt = chance(50) ? st : pick_in_family(family);
  const struct ftype *rt = is_put(f) ? dt : st, *lt = is_put(f) ? st : dt;
  size_t L = st->B / gcd(st->B, dt->B) * dt->B;
  size_t zone = is_put(f) ? DATA : REG;
  size_t k = chance(5) ? 0 : 1 + below(chance(20) ? 40 : 8), n;
  for (;; --k) {
    n = k * L;
    if (span(rt, n) <= zone && span(lt, n) <= LOCAL) {
      break;
    }
  }
  size_t rspan = span(rt, n), lspan = span(lt, n);
  size_t roff = below(zone - rspan + 1), loff = below(LOCAL - lspan + 1);
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + roff);
  describe_transfer(f, s, g, n, st, dt, "valid");
  if (is_put(f)) {
    local_fill_random();
  } else {
    local_fill_canary();
  }
  memcpy(lexpect, lraw, sizeof lraw);
  dart_handle_t h = (dart_handle_t)(uintptr_t)0x1234;
  dart_ret_t ret = issue(f, g, lbody + loff, n, st->id, dt->id, &h, false);
  int lines = new_log_lines();
  if (ret != DART_OK) {
    FAIL("returned %d", (int)ret);
  }
  if (lines != 0) {
    FAIL("a valid call logged %d lines", lines);
  }
  complete_transfer(f, g, f == PUT_HANDLE || f == GET_HANDLE ? h : NULL);
  if (new_log_lines() != 0) {
    FAIL("completing a valid call logged");
  }
  unsigned char *sh = shadow_of(s, owner) + roff;
  for (size_t j = 0; j < n; ++j) {
    size_t lp = loff + pos(lt, j) * lt->esize, rp = pos(rt, j) * rt->esize;
    if (is_put(f)) {
      memcpy(sh + rp, lbody + lp, rt->esize);
    } else {
      memcpy(lexpect + LGUARD + lp, sh + rp, rt->esize);
    }
  }
  (void)rspan;
  local_check(lexpect, is_put(f) ? "a put changed its source or guards"
                                  : "wrong data or guards after a get");
  ++stats[n == 0 ? ST_ZERO : ST_VALID];
  ++stats[ST_PUTGET];
}

static inline dart_datatype_t bad_type_id(void)
{
  const dart_datatype_t bad[] = { DART_TYPE_UNDEFINED, DART_TYPE_LAST,
                                  (dart_datatype_t)123456789,
                                  (dart_datatype_t)-5, stale_type,
                                  (dart_datatype_t)255 };
  return bad[below(6)];
}

static inline void invalid_transfer(void)
{
  enum form f = (enum form)below(6);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  int family = chance(60) ? (int)below(NBASIC)
                          : (int[]){ 2, 2, 4, 100 }[below(4)];
  const struct ftype *st = pick_in_family(family);
  const struct ftype *dt = chance(50) ? st : pick_in_family(family);
  size_t L = st->B / gcd(st->B, dt->B) * dt->B;
  size_t n = L * (1 + below(4));
  dart_datatype_t sid = st->id, did = dt->id;
  const struct ftype *rt = is_put(f) ? dt : st;
  dart_gptr_t g = gptr_to(s, owner, region_off(me) + below(64));
  void *buf = lbody + below(64);
  bool null_handle = false;
  const char *kind = "?";
  int how = (int)below(9);
  if (how == 7 && f != PUT_HANDLE && f != GET_HANDLE) {
    how = 0;
  }
  switch (how) {
  case 0:
  case 1:
    g = bad_gptr(s, owner, region_off(me), span(rt, n), &kind);
    break;
  case 2:
    buf = NULL;
    kind = "NULL local buffer";
    break;
  case 3:
    n = huge_count(s, st->esize, L);
    kind = "huge count";
    if (chance(20)) {
      buf = NULL;
    }
    break;
  case 4: {
    /* Different base types, some of the same size. */
    static const dart_datatype_t pairs[][2] = {
      { DART_TYPE_INT, DART_TYPE_UINT },   { DART_TYPE_INT, DART_TYPE_FLOAT },
      { DART_TYPE_LONG, DART_TYPE_LONGLONG },
      { DART_TYPE_LONG, DART_TYPE_DOUBLE },
      { DART_TYPE_ULONG, DART_TYPE_ULONGLONG },
      { DART_TYPE_BYTE, DART_TYPE_SHORT },
      { DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE },
    };
    int p = (int)below(sizeof pairs / sizeof *pairs + 3);
    if (p < (int)(sizeof pairs / sizeof *pairs)) {
      sid = pairs[p][below(2)];
      did = pairs[p][0] == sid ? pairs[p][1] : pairs[p][0];
    } else if (p == (int)(sizeof pairs / sizeof *pairs)) {
      sid = types[NBASIC + 4].id; /* custom(12) vs BYTE */
      did = DART_TYPE_BYTE;
    } else if (p == (int)(sizeof pairs / sizeof *pairs) + 1) {
      sid = types[NBASIC].id; /* strided INT vs LONG */
      did = DART_TYPE_LONG;
    } else {
      sid = types[NBASIC + 5].id; /* strided custom vs strided LONG */
      did = types[NBASIC + 3].id;
    }
    if (chance(50)) {
      dart_datatype_t t = sid;
      sid = did;
      did = t;
    }
    n = 2 * (1 + below(4));
    st = dt = NULL;
    kind = "type mismatch";
    break;
  }
  case 5:
    if (chance(50)) {
      sid = bad_type_id();
      st = NULL;
    } else {
      did = bad_type_id();
      dt = NULL;
    }
    kind = "invalid type";
    break;
  case 6: {
    /* A count that is not a multiple of a derived type's block count. */
    const struct ftype *t = &types[NBASIC + (below(2) ? 0 : 2)]; /* B 2, 6 */
    if (chance(50)) {
      st = t;
      dt = &types[2];
    } else {
      st = &types[2];
      dt = t;
    }
    sid = st->id;
    did = dt->id;
    n = t->B * (1 + below(3)) + 1 + below(t->B - 1);
    kind = "count not a multiple of the block count";
    break;
  }
  case 7:
    null_handle = true;
    kind = "NULL handle pointer";
    break;
  default: {
    /* Two faults at once. */
    g = bad_gptr(s, owner, region_off(me), span(rt, n), &kind);
    if (chance(50)) {
      n = huge_count(s, st->esize, L);
    } else {
      buf = NULL;
    }
    kind = "bad gptr and count or buffer";
    break;
  }
  }
  describe_transfer(f, s, g, n, st, dt, "invalid");
  snprintf(what + strlen(what), sizeof what - strlen(what), " [%s]%s", kind,
           buf == NULL ? " NULL buffer" : "");
  if (is_put(f)) {
    local_fill_random();
  } else {
    local_fill_canary();
  }
  memcpy(lexpect, lraw, sizeof lraw);
  dart_handle_t h = (dart_handle_t)(uintptr_t)0x1234;
  dart_ret_t ret = issue(f, g, buf, n, sid, did, &h, null_handle);
  int lines = new_log_lines();
  if (ret != DART_ERR_INVAL) {
    FAIL("returned %d, expected DART_ERR_INVAL (%d)", (int)ret,
         (int)DART_ERR_INVAL);
  }
  if (lines != 1) {
    FAIL("logged %d lines, expected one", lines);
  }
  if ((f == PUT_HANDLE || f == GET_HANDLE) && !null_handle &&
      h != DART_HANDLE_NULL) {
    FAIL("the handle is %p after an error, expected DART_HANDLE_NULL",
         (void *)h);
  }
  local_check(lexpect, "an invalid call wrote local memory");
  /* Nothing may be in flight: a flush of the valid segment has nothing
   * to do and succeeds. */
  dart_gptr_t valid = gptr_to(s, owner, 0);
  if (dart_flush_all(valid) != DART_OK || new_log_lines() != 0) {
    FAIL("dart_flush_all after the invalid call failed");
  }
  ++stats[ST_INVALID];
  ++stats[ST_PUTGET];
}

/* A count of 0 is DART_OK and moves nothing, whatever the target
 * (dart_communication.h); a bad gptr may also be reported. Never a
 * write. */
static inline void zero_transfer(void)
{
  enum form f = (enum form)below(6);
  int s = pick_segment();
  int owner = (int)below((uint64_t)nunits);
  const char *kind = "valid gptr";
  dart_gptr_t g = chance(50) ? gptr_to(s, owner, region_off(me))
                             : bad_gptr(s, owner, region_off(me), 0, &kind);
  describe_transfer(f, s, g, 0, &types[2], &types[2], "zero-count");
  snprintf(what + strlen(what), sizeof what - strlen(what), " [%s]", kind);
  local_fill_canary();
  memcpy(lexpect, lraw, sizeof lraw);
  dart_handle_t h = (dart_handle_t)(uintptr_t)0x1234;
  dart_ret_t ret = issue(f, g, chance(50) ? lbody : NULL, 0, DART_TYPE_INT,
                         DART_TYPE_INT, &h, false);
  int lines = new_log_lines();
  if (ret != DART_OK && ret != DART_ERR_INVAL) {
    FAIL("returned %d", (int)ret);
  }
  if (lines != (ret == DART_OK ? 0 : 1)) {
    FAIL("logged %d lines with result %d", lines, (int)ret);
  }
  if ((f == PUT_HANDLE || f == GET_HANDLE) && h != DART_HANDLE_NULL) {
    FAIL("a zero-count transfer left a handle");
  }
  local_check(lexpect, "a zero-count transfer wrote local memory");
  ++stats[ST_ZERO];
  ++stats[ST_PUTGET];
}

#endif
