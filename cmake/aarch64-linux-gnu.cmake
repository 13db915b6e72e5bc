# Cross-compiling for 64-bit ARM Linux (Raspberry Pi 3, 4, 5 with a 64-bit
# OS) with Debian's cross compiler (crossbuild-essential-arm64) and the
# arm64 builds of the dependencies installed beside the native ones
# (multiarch: libzmq3-dev:arm64, ...). scripts/cross-arm64.sh installs both
# and uses this file:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Test programs run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), so
# ctest works in the cross build as in a native one.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Headers and libraries of the target only; programs of the build machine.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the arm64 .pc files (multiarch) and no native ones.
set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# The arm64 loader and libraries are installed natively by multiarch, so
# qemu-aarch64 needs no -L prefix.
find_program(QS_QEMU_AARCH64 qemu-aarch64)
if(QS_QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${QS_QEMU_AARCH64})
endif()
