# Sourced by the MPI scripts for the GPU machine, after bench/gpu_env.sh: the carried
# libraries without the Debian OpenMPI ones (libmpi, libopen-*, hwloc, libevent), so that
# cusched runs against the host's OpenMPI, whose mpirun starts the ranks.
mkdir -p /tmp/carrylib
for f in .carry/gpu/lib/*; do
  case "$(basename "$f")" in libmpi*|libopen-*|libhwloc*|libevent*) ;; *) ln -sf "$PWD/$f" /tmp/carrylib/ ;; esac
done
export LD_LIBRARY_PATH=/tmp/carrylib:$NVRTC_DIR
