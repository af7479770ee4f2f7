# Everything the kit needs from outside, found in one place. All of it comes from Debian's packages
# (see ./kit for the list); nothing is vendored.
include(CheckLanguage)

find_package(yaml-cpp REQUIRED)
# yaml-cpp 0.7 (Debian 12) exports `yaml-cpp`, 0.8 `yaml-cpp::yaml-cpp`: one name for the kit.
add_library(labkit_yaml INTERFACE)
if(TARGET yaml-cpp::yaml-cpp)
  target_link_libraries(labkit_yaml INTERFACE yaml-cpp::yaml-cpp)
else()
  target_link_libraries(labkit_yaml INTERFACE yaml-cpp)
endif()
find_package(nlohmann_json 3.10 REQUIRED)
# labgrade's command line (Debian's libcli11-dev, header only).
find_package(CLI11 CONFIG REQUIRED)
find_package(Threads REQUIRED)
# Zip and tar submissions (batch grading) and the Gradescope bundle's zip. Optional, so that a
# machine without libarchive-dev still builds and grades folders.
find_package(LibArchive QUIET)
if(LABKIT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# The GPU backend needs nvcc. Without it the kit still builds and grades through the CPU backend.
# OFF builds the CPU backend alone even where nvcc is installed (the Gradescope bundle's setup.sh:
# no GPU there); labgrade still finds nvcc for its resource report (labkit_write_manifest).
option(LABKIT_ENABLE_GPU "Build the GPU backend where nvcc is found" ON)
if(LABKIT_ENABLE_GPU)
  check_language(CUDA)
endif()
if(LABKIT_ENABLE_GPU AND CMAKE_CUDA_COMPILER)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # The GPU's own architecture where one is present, Hopper (sm_90) as the default build target.
    execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _labkit_cc RESULT_VARIABLE _labkit_smi ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_labkit_smi EQUAL 0 AND _labkit_cc MATCHES "^([0-9]+)\\.([0-9]+)")
      set(CMAKE_CUDA_ARCHITECTURES "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    else()
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(LABKIT_WITH_GPU ON)
else()
  set(LABKIT_WITH_GPU OFF)
  message(STATUS "labkit: no nvcc found, or LABKIT_ENABLE_GPU=OFF; only the CPU backend is built")
endif()

# The CPU backend needs Boost.Context for its fibers, and Zydis to decode the instruction of an
# access it counts from a fault (emu/runtime/src/execution/watched_data.h).
option(LABKIT_ENABLE_EMU "Build the CPU backend (emu/) where Boost.Context and Zydis are found" ON)
if(LABKIT_ENABLE_EMU)
  find_package(Boost 1.74 COMPONENTS context QUIET)
  find_package(zydis QUIET)
endif()
if(LABKIT_ENABLE_EMU AND Boost_FOUND AND zydis_FOUND)
  set(LABKIT_WITH_EMU ON)
else()
  set(LABKIT_WITH_EMU OFF)
  message(STATUS "labkit: Boost.Context or Zydis not found; the CPU backend is not built")
endif()
