# The torch engine as a Python extension module (accel_doctor._engine,
# python/src/engine_module.cpp; docs/python.md), built against the torch this
# build links, for an interpreter whose `import torch` is that same torch.
#
# ACCEL_PYTHON_MODULE:
#   ON    build it (setup.py passes ON and Python_EXECUTABLE = the installing
#         interpreter); a missing pybind11 or Python headers is an error.
#   AUTO  (default) build it when an interpreter whose torch has this build's
#         major.minor version is found (Python_EXECUTABLE if given, the Python
#         torch FindTorchAuto used, else python3 beside the system's own:
#         Debian's python3-torch is the libtorch-dev build), with pybind11 and
#         its headers; else say why not and go on. CI builds it this way, and
#         tests/python/package.sh installs the package from this build tree.
#   OFF   never.
set(ACCEL_PYTHON_MODULE AUTO CACHE STRING "Build the Python extension module accel_doctor._engine: ON, OFF or AUTO")
set_property(CACHE ACCEL_PYTHON_MODULE PROPERTY STRINGS ON OFF AUTO)

set(_accel_py_why "")
if(ACCEL_PYTHON_MODULE STREQUAL "AUTO" AND NOT DEFINED Python_EXECUTABLE)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _accel_torch_mm "${Torch_VERSION}")
  set(_accel_candidates "")
  if(ACCEL_TORCH_SOURCE MATCHES "^Python torch")
    list(APPEND _accel_candidates "${ACCEL_PYTHON}")
  endif()
  list(APPEND _accel_candidates /usr/bin/python3 "${ACCEL_PYTHON}")
  foreach(_py ${_accel_candidates})
    if(NOT EXISTS "${_py}")
      continue()
    endif()
    execute_process(COMMAND "${_py}" -c "import torch, sys; sys.stdout.write(torch.__version__)"
                    OUTPUT_VARIABLE _accel_py_torch ERROR_QUIET RESULT_VARIABLE _accel_rc TIMEOUT 120)
    if(_accel_rc EQUAL 0 AND _accel_py_torch MATCHES "^${_accel_torch_mm}")
      set(Python_EXECUTABLE "${_py}")
      break()
    endif()
  endforeach()
  if(NOT DEFINED Python_EXECUTABLE)
    set(_accel_py_why "no Python whose torch is ${Torch_VERSION} (looked at: ${_accel_candidates})")
  endif()
endif()

set(ACCEL_PYTHON_MODULE_BUILT OFF)
if(ACCEL_PYTHON_MODULE STREQUAL "ON" OR (ACCEL_PYTHON_MODULE STREQUAL "AUTO" AND _accel_py_why STREQUAL ""))
  set(PYBIND11_FINDPYTHON ON)
  if(ACCEL_PYTHON_MODULE STREQUAL "ON")
    find_package(Python COMPONENTS Interpreter Development.Module REQUIRED)
    find_package(pybind11 CONFIG REQUIRED)
  else()
    find_package(Python COMPONENTS Interpreter Development.Module QUIET)
    find_package(pybind11 CONFIG QUIET)
    if(NOT Python_Development.Module_FOUND)
      set(_accel_py_why "no Python headers for ${Python_EXECUTABLE} (Debian: python3-dev)")
    elseif(NOT pybind11_FOUND)
      set(_accel_py_why "no pybind11 (Debian: pybind11-dev; or pip install pybind11)")
    endif()
  endif()
  if(_accel_py_why STREQUAL "")
    pybind11_add_module(accel_doctor_engine MODULE python/src/engine_module.cpp)
    set_target_properties(accel_doctor_engine PROPERTIES OUTPUT_NAME _engine)
    target_link_libraries(accel_doctor_engine PRIVATE accel_engine)
    target_compile_options(accel_doctor_engine PRIVATE ${ACCEL_WARNINGS})
    set(ACCEL_PYTHON_MODULE_BUILT ON)
    message(STATUS "accel-doctor: Python module for ${Python_EXECUTABLE} (${Python_VERSION}), pybind11 ${pybind11_VERSION}")
  endif()
endif()
if(NOT ACCEL_PYTHON_MODULE_BUILT AND NOT ACCEL_PYTHON_MODULE STREQUAL "OFF")
  message(STATUS "accel-doctor: no Python module: ${_accel_py_why}")
endif()
