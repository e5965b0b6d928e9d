# Cross-compile ackstall for 64-bit Windows with Debian's MinGW-w64 (g++-mingw-w64-x86-64-posix:
# the "posix" thread model, needed for std::thread / std::mutex).
#
#   cmake -S . -B build/mingw -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake \
#     -DACKSTALL_BUILD_SIM=OFF -DACKSTALL_BUILD_BENCH=OFF -DACKSTALL_WERROR=ON
#
# Tests run under Wine: when `wine` is on PATH it becomes CMAKE_CROSSCOMPILING_EMULATOR, so
# ctest runs each .exe as `wine test.exe` (set WINEPREFIX / WINEDEBUG=-all in the environment;
# scripts/test-windows.sh does). The executables are linked statically against libgcc and
# libstdc++ (and winpthread), so Wine needs no MinGW DLLs on its path.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(_mingw x86_64-w64-mingw32)
find_program(CMAKE_CXX_COMPILER NAMES ${_mingw}-g++-posix ${_mingw}-g++ REQUIRED)
find_program(CMAKE_C_COMPILER NAMES ${_mingw}-gcc-posix ${_mingw}-gcc)
find_program(CMAKE_RC_COMPILER NAMES ${_mingw}-windres)

# Libraries and headers of the target come from the MinGW sysroot only; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(ACKSTALL_WINE NAMES wine wine64)
  if(ACKSTALL_WINE)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${ACKSTALL_WINE})
  endif()
endif()
