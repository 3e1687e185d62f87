/* The readers' side of the bootstrap (unit_records.h). */
#include "mpi/bootstrap/state.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"

#include <string.h>

/* On-demand: the record from its node's table, kept in ours (the write
 * side of the 2N-lock). */
static dart_ret_t fetch_record(int32_t unit, uint32_t slot,
                               struct unit_record *out)
{
  union {
    uint64_t      state;
    unsigned char bytes[sizeof(uint64_t) + sizeof(struct unit_record) + 8];
  } buffer;
  int target = boot.root_of[boot.node_of[unit]];
  int count = (int)boot.db.slot_size;
  MPI_Aint disp = (MPI_Aint)slot * (MPI_Aint)boot.db.slot_size;
  int err = MPI_Get(&buffer, count, MPI_BYTE, target, disp, count, MPI_BYTE,
                    boot.fetch_win);
  if (err == MPI_SUCCESS) {
    err = mpi_win_flush_settled(target, boot.fetch_win, disp, true);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error("unit_record_get", "MPI_Get", err);
  }
  if (!node_db_slot_filled(&buffer)) {
    return report_error(DART_ERR_OTHER, "unit_record_get",
                        "node %d has no record of unit %d",
                        (int)boot.node_of[unit], (int)unit);
  }
  memcpy(out, node_db_slot_record_const(&buffer), sizeof *out);
  node_db_write(&boot.db, slot, out);
  boot.counters.fetches += 1;
  return DART_OK;
}

dart_ret_t unit_record_get(int32_t unit, struct unit_record *out)
{
  if (!boot.active) {
    return report_error(DART_ERR_NOTINIT, __func__,
                        "DART is not initialized (call dart_init first)");
  }
  if (out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "out is NULL");
  }
  if (unit < 0 || unit >= boot.num_units) {
    return report_error(DART_ERR_INVAL, __func__,
                        "unit %d out of range [0, %d)", (int)unit,
                        (int)boot.num_units);
  }
  /* Counted without atomics: an atomic add would cost more than the read
   * it counts, and concurrent threads may only lose counts. */
  boot.counters.lookups += 1;
  if (boot.private_records != NULL) {
    *out = boot.private_records[unit];
    return DART_OK;
  }
  uint32_t slot = (uint32_t)boot.slot_of[unit];
  if (node_db_read(&boot.db, boot.reader, slot, out)) {
    return DART_OK;
  }
  if (boot.fetch_win == MPI_WIN_NULL) {
    return report_error(DART_ERR_OTHER, __func__,
                        "record of unit %d missing from the node table",
                        (int)unit);
  }
  return fetch_record(unit, slot, out);
}

int32_t unit_records_num_nodes(void)
{
  return boot.active ? boot.num_nodes : 0;
}

static dart_ret_t entries_available(const char *call, const void *value)
{
  if (!boot.active) {
    return report_error(DART_ERR_NOTINIT, call,
                        "DART is not initialized (call dart_init first)");
  }
  if (value == NULL) {
    return report_error(DART_ERR_INVAL, call, "value is NULL");
  }
  if (boot.private_records != NULL) {
    return report_error(DART_ERR_OTHER, call,
                        "node entries need a node table "
                        "(DART_BOOTSTRAP=node-roots or on-demand)");
  }
  return DART_OK;
}

dart_ret_t unit_records_entry_put(uint64_t key, const void *value)
{
  dart_ret_t ret = entries_available(__func__, value);
  if (ret == DART_OK && !node_db_write_keyed(&boot.db, key, value)) {
    ret = report_error(DART_ERR_NOMEM, __func__,
                       "all %d node entries are taken",
                       UNIT_RECORDS_MAX_ENTRIES);
  }
  return ret;
}

dart_ret_t unit_records_entry_get(uint64_t key, void *value)
{
  dart_ret_t ret = entries_available(__func__, value);
  if (ret == DART_OK &&
      !node_db_read_keyed(&boot.db, boot.reader, key, value)) {
    ret = DART_ERR_NOTFOUND; /* an answer, not an error: no log line */
  }
  return ret;
}
