# C++ compiles go through ccache where it is installed (./kit installs it). A second build of the
# same sources then costs a lookup instead of a compile, in this folder or in another copy of the
# kit: the Gradescope bundle's test builds the copy that setup.sh unpacks, on CI right after the
# main build, and takes the main build's objects instead of compiling it all again.
#
# Two copies share entries because paths under the kit's folder are rewritten relative to each
# compile's own folder (CCACHE_BASEDIR), and the compile's folder is left out of the hash
# (CCACHE_NOHASHDIR): the line tables of an object from the cache may then name the other copy's
# folder. The test files' precompiled header (grader/CMakeLists.txt) is hashed like any included
# file; CCACHE_SLOPPINESS lets ccache cache the compiles that use it. nvcc's compiles (the GPU
# harnesses, 24 of them in labgrade's own build) go through ccache too: without them, the
# Gradescope bundle's build of a cached kit took 130 s on 2 cores, with them 65 s.
# LABKIT_USE_CCACHE=OFF, or a launcher of one's own, turns it off.
option(LABKIT_USE_CCACHE "Compile C++ through ccache where it is installed" ON)
find_program(LABKIT_CCACHE_PROGRAM ccache)
set(labkit_ccache_launcher env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
                            CCACHE_SLOPPINESS=pch_defines,time_macros ${LABKIT_CCACHE_PROGRAM})
if(LABKIT_USE_CCACHE AND LABKIT_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${labkit_ccache_launcher})
endif()
if(LABKIT_USE_CCACHE AND LABKIT_CCACHE_PROGRAM AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${labkit_ccache_launcher})
endif()
