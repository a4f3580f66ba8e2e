# Torch discovery, in the order the foundation issue fixes:
#  1. an explicit Torch_DIR or CMAKE_PREFIX_PATH (the user knows best);
#  2. a Python torch that imports (a GPU user's CUDA or ROCm build);
#  3. Debian's libtorch-dev (torch 1.13, CPU).
# Sets ACCEL_TORCH_SOURCE to a sentence saying which one was used.
set(ACCEL_TORCH_SOURCE "")
if(DEFINED Torch_DIR OR DEFINED ENV{Torch_DIR})
  find_package(Torch REQUIRED)
  set(ACCEL_TORCH_SOURCE "explicit Torch_DIR")
else()
  find_package(Torch QUIET)
  if(Torch_FOUND AND CMAKE_PREFIX_PATH)
    set(ACCEL_TORCH_SOURCE "CMAKE_PREFIX_PATH")
  else()
    set(Torch_FOUND FALSE)
    unset(Torch_DIR CACHE)
  endif()
endif()

if(NOT Torch_FOUND AND NOT ACCEL_NO_PYTHON_TORCH)
  find_program(ACCEL_PYTHON NAMES python3 python)
  if(ACCEL_PYTHON)
    execute_process(
      COMMAND ${ACCEL_PYTHON} -c "import torch, sys; sys.stdout.write(torch.utils.cmake_prefix_path)"
      OUTPUT_VARIABLE _py_torch_prefix
      ERROR_QUIET
      RESULT_VARIABLE _py_rc
      TIMEOUT 120)
    if(_py_rc EQUAL 0 AND EXISTS "${_py_torch_prefix}/Torch")
      find_package(Torch QUIET PATHS "${_py_torch_prefix}" NO_DEFAULT_PATH)
      if(Torch_FOUND)
        set(ACCEL_TORCH_SOURCE "Python torch (${ACCEL_PYTHON})")
      endif()
    endif()
  endif()
endif()

if(NOT Torch_FOUND)
  find_package(Torch QUIET PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake /usr/lib/cmake /usr/share/cmake)
  if(Torch_FOUND)
    set(ACCEL_TORCH_SOURCE "system libtorch (${Torch_DIR})")
  endif()
endif()

if(NOT Torch_FOUND)
  message(FATAL_ERROR
    "accel-doctor needs libtorch and found none.\n"
    "  Debian/Ubuntu: run scripts/setup.sh (installs libtorch-dev), or\n"
    "  point CMake at a torch: -DTorch_DIR=<prefix>/share/cmake/Torch, or\n"
    "  install a Python torch so that `python3 -c 'import torch'` works.")
endif()
message(STATUS "accel-doctor: torch ${Torch_VERSION} from ${ACCEL_TORCH_SOURCE}")
