#include <dash/dart/if/dart.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  if (dart_init(&argc, &argv) != DART_OK) {
    return 1;
  }
  dart_global_unit_t me;
  size_t units;
  dart_myid(&me);
  dart_size(&units);

  int mine = me.id, sum = 0;
  dart_allreduce(&mine, &sum, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL);
  printf("unit %d of %zu: sum of all unit ids = %d\n", me.id, units, sum);

  dart_exit();
  return sum == (int)(units * (units - 1) / 2) ? 0 : 1;
}
