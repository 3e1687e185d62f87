#include "base/hwinfo_probe.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)

void hwinfo_set_unknown(dart_hwinfo_t *hw)
{
  memset(hw, 0, sizeof *hw);
  hw->num_cores = hw->num_numa = hw->numa_id = hw->num_sockets = -1;
  hw->core_id = hw->cpu_id = hw->min_cpu_mhz = hw->max_cpu_mhz = -1;
  for (int l = 0; l < DART_LOCALITY_MAX_CACHE_LEVELS; ++l) {
    hw->cache_sizes[l] = hw->cache_line_sizes[l] = hw->cache_ids[l] = -1;
  }
  hw->min_threads = hw->max_threads = hw->max_shmem_mbps = -1;
  hw->system_memory_bytes = hw->numa_memory_bytes = -1;
  for (int s = 0; s < DART_LOCALITY_MAX_DOMAIN_SCOPES; ++s) {
    hw->scopes[s].scope = DART_LOCALITY_SCOPE_UNDEFINED;
    hw->scopes[s].index = -1;
  }
  hw->num_scopes = 0;
}

static int clamp_int(unsigned long long v)
{
  return v > INT_MAX ? INT_MAX : (int)v;
}

static int count_or_unknown(hwloc_topology_t topology, hwloc_obj_type_t type)
{
  int n = hwloc_get_nbobjs_by_type(topology, type);
  return n > 0 ? n : -1;
}

/* The PU the process is bound to if that is one PU, else where it ran
 * last (unbound processes may move; that is the best guess there is). */
static hwloc_obj_t my_pu(hwloc_topology_t topology, hwloc_bitmap_t allowed)
{
  hwloc_bitmap_t where = hwloc_bitmap_alloc();
  hwloc_obj_t pu = NULL;
  if (where == NULL) {
    return NULL;
  }
  if (hwloc_get_cpubind(topology, allowed, HWLOC_CPUBIND_PROCESS) != 0) {
    hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topology));
  }
  if (hwloc_bitmap_weight(allowed) == 1) {
    hwloc_bitmap_copy(where, allowed);
  } else if (hwloc_get_last_cpu_location(topology, where,
                                         HWLOC_CPUBIND_PROCESS) != 0) {
    hwloc_bitmap_zero(where);
  }
  int os_index = hwloc_bitmap_first(where);
  if (os_index >= 0) {
    pu = hwloc_get_pu_obj_by_os_index(topology, (unsigned)os_index);
  }
  hwloc_bitmap_free(where);
  return pu;
}

static void add_scope(dart_hwinfo_t *hw, dart_locality_scope_t scope,
                      int index)
{
  if (hw->num_scopes < DART_LOCALITY_MAX_DOMAIN_SCOPES) {
    hw->scopes[hw->num_scopes].scope = scope;
    hw->scopes[hw->num_scopes].index = index;
    ++hw->num_scopes;
  }
}

/* The NUMA node among `obj`'s memory children that covers `pu`. */
static hwloc_obj_t numa_child_covering(hwloc_obj_t obj, hwloc_obj_t pu)
{
  for (hwloc_obj_t m = obj->memory_first_child; m != NULL;
       m = m->next_sibling) {
    if (m->type == HWLOC_OBJ_NUMANODE &&
        hwloc_bitmap_isincluded(pu->cpuset, m->cpuset)) {
      return m;
    }
  }
  return NULL;
}

/* Walks from the PU to the root: caches per level, core, package and
 * NUMA node, and the scope list (finest first, shared caches only, as a
 * private cache adds nothing the core does not say). */
static void probe_ancestors(hwloc_obj_t pu, dart_hwinfo_t *hw)
{
  hw->cpu_id = (int)pu->os_index;
  hwloc_obj_t core = NULL;
  for (hwloc_obj_t obj = pu->parent; obj != NULL; obj = obj->parent) {
    if (obj->type == HWLOC_OBJ_CORE) {
      core = obj;
      hw->core_id = (int)obj->logical_index;
      add_scope(hw, DART_LOCALITY_SCOPE_CORE, hw->core_id);
    } else if (hwloc_obj_type_is_cache(obj->type) &&
               obj->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION) {
      int level = (int)obj->attr->cache.depth;
      if (level >= 1 && level <= DART_LOCALITY_MAX_CACHE_LEVELS) {
        hw->cache_sizes[level - 1] = clamp_int(obj->attr->cache.size);
        hw->cache_line_sizes[level - 1] = (int)obj->attr->cache.linesize;
        hw->cache_ids[level - 1] = (int)obj->logical_index;
      }
      if (core != NULL && !hwloc_bitmap_isequal(obj->cpuset, core->cpuset)) {
        add_scope(hw, DART_LOCALITY_SCOPE_CACHE, (int)obj->logical_index);
      }
    } else if (obj->type == HWLOC_OBJ_PACKAGE) {
      add_scope(hw, DART_LOCALITY_SCOPE_PACKAGE, (int)obj->logical_index);
    }
    hwloc_obj_t numa = numa_child_covering(obj, pu);
    if (numa != NULL && hw->numa_id < 0) {
      hw->numa_id = (int)numa->logical_index;
      hw->numa_memory_bytes =
          clamp_int((unsigned long long)(numa->attr->numanode.local_memory /
                                         MIB));
      add_scope(hw, DART_LOCALITY_SCOPE_NUMA, hw->numa_id);
    }
  }
}

static void probe_threads_per_core(hwloc_topology_t topology,
                                   hwloc_const_bitmap_t allowed,
                                   dart_hwinfo_t *hw)
{
  int cores = 0, min_t = INT_MAX, max_t = 0;
  hwloc_obj_t core = NULL;
  while ((core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE,
                                            core)) != NULL) {
    int threads = hwloc_bitmap_weight(core->cpuset);
    min_t = threads < min_t ? threads : min_t;
    max_t = threads > max_t ? threads : max_t;
    if (hwloc_bitmap_intersects(core->cpuset, allowed)) {
      ++cores;
    }
  }
  if (max_t > 0) {
    hw->min_threads = min_t;
    hw->max_threads = max_t;
    hw->num_cores = cores;
  }
}

/* cpufreq's range in kHz, if the kernel exposes it. */
static int read_khz(int cpu, const char *file)
{
  char path[128];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/%s",
           cpu, file);
  FILE *f = fopen(path, "r");
  long khz = -1;
  if (f != NULL) {
    if (fscanf(f, "%ld", &khz) != 1) {
      khz = -1;
    }
    fclose(f);
  }
  return khz > 0 ? (int)(khz / 1000) : -1;
}

void hwinfo_probe(hwloc_topology_t topology, dart_hwinfo_t *hw)
{
  hwinfo_set_unknown(hw);
  if (gethostname(hw->host, sizeof hw->host) != 0) {
    snprintf(hw->host, sizeof hw->host, "unknown");
  }
  hw->host[sizeof hw->host - 1] = '\0';
  if (topology == NULL) {
    return;
  }
  hw->num_numa = count_or_unknown(topology, HWLOC_OBJ_NUMANODE);
  hw->num_sockets = count_or_unknown(topology, HWLOC_OBJ_PACKAGE);
  hwloc_obj_t root = hwloc_get_root_obj(topology);
  hw->system_memory_bytes =
      clamp_int((unsigned long long)(root->total_memory / MIB));

  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  if (allowed == NULL) {
    return;
  }
  hwloc_obj_t pu = my_pu(topology, allowed);
  probe_threads_per_core(topology, allowed, hw);
  hwloc_bitmap_free(allowed);
  if (pu != NULL) {
    probe_ancestors(pu, hw);
    hw->min_cpu_mhz = read_khz(hw->cpu_id, "cpuinfo_min_freq");
    hw->max_cpu_mhz = read_khz(hw->cpu_id, "cpuinfo_max_freq");
  }
}

void hwinfo_mark_node(dart_hwinfo_t *hw, int node_id)
{
  char suffix[16];
  int n = snprintf(suffix, sizeof suffix, "-n%d", node_id);
  size_t room = sizeof hw->host - 1 - (size_t)n;
  size_t len = strnlen(hw->host, sizeof hw->host);
  if (len > room) {
    len = room;
  }
  memcpy(hw->host + len, suffix, (size_t)n + 1);
}
