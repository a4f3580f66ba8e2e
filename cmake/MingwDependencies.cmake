# Dependencies of the mingw-w64 cross-build (cmake/toolchains/mingw-w64-x86_64.cmake),
# all built from source or header-only, with Debian packages only:
#   fmt            libfmt-dev's headers, with fmt's format.cc of the same release
#                  compiled once (third_party/fmt: header-only mode doubled
#                  the compile time of every file)
#   nlohmann-json  nlohmann-json3-dev (header-only)
#   CLI11          libcli11-dev (header-only)
#   RE2            third_party/re2 (a pinned release; Debian ships no RE2 source
#                  without deb-src, and its libre2.a is a Linux object)
#   GoogleTest     /usr/src/googletest (package googletest), built here
#   DXCore         directx-headers-dev's dxcore_interface.h (the interface only)
# The host headers are staged one folder each under the build dir, so the
# cross-compiler never sees /usr/include (glibc's headers would mix in).
# Defines the same targets as the native build's find_package calls.

set(_stage ${CMAKE_BINARY_DIR}/host-headers)
file(MAKE_DIRECTORY ${_stage})
function(accel_stage_headers folder)
  if(NOT EXISTS /usr/include/${folder})
    message(FATAL_ERROR "/usr/include/${folder} not found (scripts/setup.sh test installs it)")
  endif()
  file(CREATE_LINK /usr/include/${folder} ${_stage}/${folder} SYMBOLIC)
endfunction()
accel_stage_headers(fmt)       # libfmt-dev
accel_stage_headers(nlohmann)  # nlohmann-json3-dev
accel_stage_headers(CLI)       # libcli11-dev

# DXCore's interface (directx-headers-dev: /usr/include/directx/dxcore_interface.h),
# staged alone so its folder's own d3d12.h never shadows mingw-w64's; included
# as <dxcore_interface.h>, as with the Windows SDK.
if(NOT EXISTS /usr/include/directx/dxcore_interface.h)
  message(FATAL_ERROR "/usr/include/directx/dxcore_interface.h not found (scripts/setup.sh test installs directx-headers-dev)")
endif()
file(MAKE_DIRECTORY ${_stage}/dxcore)
file(CREATE_LINK /usr/include/directx/dxcore_interface.h ${_stage}/dxcore/dxcore_interface.h SYMBOLIC)
add_library(accel_dxcore_headers INTERFACE)
target_include_directories(accel_dxcore_headers SYSTEM INTERFACE ${_stage}/dxcore)

add_library(accel_fmt STATIC ${CMAKE_SOURCE_DIR}/third_party/fmt/format.cc)
target_include_directories(accel_fmt SYSTEM PUBLIC ${_stage})
add_library(fmt::fmt ALIAS accel_fmt)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${_stage})
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 INTERFACE ${_stage})

find_package(Threads REQUIRED)

add_subdirectory(${CMAKE_SOURCE_DIR}/third_party/re2 ${CMAKE_BINARY_DIR}/third_party/re2 EXCLUDE_FROM_ALL)
add_library(accel_re2 INTERFACE)
target_link_libraries(accel_re2 INTERFACE re2 Threads::Threads)

if(ACCEL_BUILD_TESTS)
  set(_gtest_src /usr/src/googletest)
  if(NOT EXISTS ${_gtest_src}/CMakeLists.txt)
    message(FATAL_ERROR "${_gtest_src} not found: apt-get install googletest")
  endif()
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  add_subdirectory(${_gtest_src} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
endif()
