# Usage: source scripts/env.sh   (from bash; the other scripts source it)
#
# Sourced by the scripts: lets Open MPI's launcher run as root (CI runs as
# root) and run more units than cores, yielding when idle. Source it in
# your shell before running mpiexec.openmpi or ctest by hand as root or
# with more units than cores. Running it as a program changes nothing in
# the calling shell, so it then only prints this usage.
if [ -n "${BASH_VERSION:-}" ] && eval '[ "${BASH_SOURCE[0]}" = "$0" ]'; then
  echo "usage: source scripts/env.sh   (sets OMPI_ALLOW_RUN_AS_ROOT* as root," \
       "OMPI_MCA_rmaps_base_oversubscribe=1, OMPI_MCA_mpi_yield_when_idle=1)"
  case "${1:-}" in -h|--help) exit 0 ;; *) exit 2 ;; esac
fi
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
