/* stencil: 2D Poisson, five-point stencil, red-black Gauss-Seidel on DART.
 * Each unit's block of rows (plus halo rows) is its part of one
 * dart_team_memalloc_aligned segment; halo rows travel by
 * dart_put_blocking, the convergence test is a dart_allreduce (MAX).
 * Usage: stencil [-n N] [-i MAX_ITERS] [-t TOL] [--verify] [--phases] */
#include "dart_app.h"
#include "stencil_kernel.h"

struct dart_st {
  const struct st_layout *layout;
  dart_gptr_t grid;
  float      *block;
};

static void dart_st_exchange(void *ctx, int slot)
{
  struct dart_st *s = ctx;
  struct st_put puts[2];
  int k = st_exchange_plan(s->layout, slot, puts);
  for (int i = 0; i < k; ++i) {
    dart_gptr_t g = s->grid;
    g.unitid = (dart_unit_t)puts[i].target;
    g.addr_or_offs.offset += puts[i].dst * sizeof(float);
    CHECK(dart_put_blocking(g, s->block + puts[i].src, puts[i].count,
                            DART_TYPE_FLOAT, DART_TYPE_FLOAT));
  }
}

static float dart_st_max(void *ctx, float v)
{
  (void)ctx;
  float all = 0.0f;
  CHECK(dart_allreduce(&v, &all, 1, DART_TYPE_FLOAT, DART_OP_MAX,
                       DART_TEAM_ALL));
  return all;
}

int main(int argc, char **argv)
{
  struct st_params p;
  int code;
  if (st_parse_args(argc, argv, "stencil", &p, &code)) {
    return dart_app_stop(&argc, &argv, code);
  }
  dart_global_unit_t me;
  size_t units;
  dart_app_start(&argc, &argv, &me, &units);
  struct st_layout layout;
  if (st_layout_init(&p, (long)units, me.id, &layout) != 0) {
    CHECK(dart_exit());
    return 2;
  }

  struct dart_st s = { .layout = &layout };
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, st_block_floats(&layout),
                                   DART_TYPE_FLOAT, &s.grid));
  s.block = dart_app_local(s.grid, me);
  struct st_model model = {
    .name = "dart", .ctx = &s, .exchange = dart_st_exchange,
    .barrier = dart_app_barrier, .max = dart_st_max,
  };
  int rc = st_run(&p, &model, &layout, s.block);

  CHECK(dart_team_memfree(s.grid));
  CHECK(dart_exit());
  return rc;
}
