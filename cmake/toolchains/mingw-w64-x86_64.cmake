# Cross-build for 64-bit Windows with Debian's mingw-w64 (package
# g++-mingw-w64-x86-64-posix): the "posix" thread model, the one whose
# libstdc++ has std::thread and std::mutex (the win32 one has not).
# Everything is linked statically (libgcc, libstdc++, winpthread), so one
# accel-doctor.exe runs alone, without the mingw DLLs beside it.
# Tests run under Wine (CMAKE_CROSSCOMPILING_EMULATOR).
#   cmake -S . -B build-windows -G Ninja -DACCEL_TORCH_FREE=ON \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake
# (what `make windows` does). Dependencies: cmake/MingwDependencies.cmake.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(ACCEL_MINGW_TRIPLE x86_64-w64-mingw32)

find_program(CMAKE_C_COMPILER ${ACCEL_MINGW_TRIPLE}-gcc-posix)
find_program(CMAKE_CXX_COMPILER ${ACCEL_MINGW_TRIPLE}-g++-posix)
find_program(CMAKE_RC_COMPILER ${ACCEL_MINGW_TRIPLE}-windres)
if(NOT CMAKE_CXX_COMPILER)
  message(FATAL_ERROR "${ACCEL_MINGW_TRIPLE}-g++-posix not found: apt-get install g++-mingw-w64-x86-64-posix")
endif()

# Look for libraries and headers in the mingw sysroot only: never in /usr/include
# (glibc headers) or /usr/lib. The few host header-only libraries the build
# needs are staged one folder each by MingwDependencies.cmake.
set(CMAKE_FIND_ROOT_PATH /usr/${ACCEL_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")

# Wine runs the test programs. Debian 12's wine64 package installs the loader
# as /usr/lib/wine/wine64 (the package `wine` adds /usr/bin/wine, a script that
# picks wine32 or wine64). A prefix of its own in the build dir, no debug
# chatter, no Mono/Gecko installer prompts; no X display is needed for
# console programs.
find_program(ACCEL_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(ACCEL_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      env WINEPREFIX=${CMAKE_BINARY_DIR}/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml=
      ${ACCEL_WINE})
endif()
