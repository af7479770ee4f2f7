# add_lab(): everything a lab folder needs, in one call (CUTLASS's examples do the same).
# labkit_write_manifest(): the JSON file that tells labgrade where every built piece is, and the
# target `labkit_grading`: everything labgrade needs to grade, without the tests (`./kit check`).

# add_lab(<id> [DIR folder] [SOLUTION folder] [SOURCES file...]) from labs/<id>/CMakeLists.txt.
# Builds the lab's harness (its harness.cu, plus SOURCES where the lab splits its checks into
# several files) for each backend and registers the lab's tests: the solution graded in full on
# the CPU backend and on a GPU (label gpu) and, when the lab has a starter (starter/<id>), the
# starter in sync with the solution and failing cleanly. DIR: the lab's folder when it is not the
# calling one (a test's fixture lab); SOLUTION: the solution's folder when it is not
# solutions/<id>. Relative folders are taken from the calling CMakeLists.txt's.
function(add_lab id)
  cmake_parse_arguments(arg "" "DIR;SOLUTION" "SOURCES" ${ARGN})
  set(lab_dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(arg_DIR)
    get_filename_component(lab_dir ${arg_DIR} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(solution_dir ${PROJECT_SOURCE_DIR}/solutions/${id})
  if(arg_SOLUTION)
    get_filename_component(solution_dir ${arg_SOLUTION} ABSOLUTE BASE_DIR
                           ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(harness_sources ${lab_dir}/harness.cu)
  foreach(source IN LISTS arg_SOURCES)
    list(APPEND harness_sources ${lab_dir}/${source})
  endforeach()
  if(LABKIT_WITH_GPU)
    add_library(lab_${id}_harness_gpu STATIC ${harness_sources})
    target_include_directories(lab_${id}_harness_gpu PUBLIC ${lab_dir})
    target_link_libraries(lab_${id}_harness_gpu PUBLIC labkit::harness_gpu)
    string(APPEND _gpu_libs "\"${id}\": [\"$<TARGET_FILE:lab_${id}_harness_gpu>\", \"$<TARGET_FILE:labkit_harness_gpu>\"],")
    set_property(GLOBAL APPEND PROPERTY LABKIT_GRADING_TARGETS lab_${id}_harness_gpu)
  endif()
  if(LABKIT_WITH_EMU)
    emu_add_library(lab_${id}_harness_emu STATIC SOURCES ${harness_sources}
                    INCLUDE_DIRS ${lab_dir} LINK labkit::harness_emu)
    target_include_directories(lab_${id}_harness_emu PUBLIC ${lab_dir})
    string(APPEND _emu_libs "\"${id}\": [\"$<TARGET_FILE:lab_${id}_harness_emu>\", \"$<TARGET_FILE:labkit_harness_emu>\", \"$<TARGET_FILE:emu_runtime>\"],")
    set_property(GLOBAL APPEND PROPERTY LABKIT_GRADING_TARGETS lab_${id}_harness_emu)
  endif()
  set_property(GLOBAL APPEND PROPERTY LABKIT_LABS ${id})
  # Where labgrade finds the lab's lab.yaml and header (Manifest::LabDir).
  set_property(GLOBAL APPEND_STRING PROPERTY LABKIT_LAB_DIRS "\"${id}\": \"${lab_dir}\",")
  set_property(GLOBAL APPEND_STRING PROPERTY LABKIT_GPU_LIBS "${_gpu_libs}")
  set_property(GLOBAL APPEND_STRING PROPERTY LABKIT_EMU_LIBS "${_emu_libs}")

  if(LABKIT_BUILD_TESTS)
    labkit_add_lab_tests(${id} ${solution_dir})
  endif()
endfunction()

function(labkit_add_lab_tests id solution_dir)
  set(starter_dir ${PROJECT_SOURCE_DIR}/starter/${id})
  if(EXISTS ${starter_dir})
    add_test(NAME ${id}.starter_in_sync
             COMMAND labgrade starter ${id} --check)
  endif()
  set(backends)
  if(LABKIT_WITH_EMU)
    list(APPEND backends cpu)
  endif()
  if(LABKIT_WITH_GPU)
    list(APPEND backends gpu)
  endif()
  foreach(backend IN LISTS backends)
    set(tests ${id}.solution_full_marks_${backend})
    add_test(NAME ${id}.solution_full_marks_${backend}
             COMMAND labgrade check ${id} --src ${solution_dir} --backend ${backend}
                     --require full)
    if(EXISTS ${starter_dir})
      list(APPEND tests ${id}.starter_fails_cleanly_${backend})
      add_test(NAME ${id}.starter_fails_cleanly_${backend}
               COMMAND labgrade check ${id} --src ${starter_dir} --backend ${backend}
                       --require given-only)
    endif()
    # 77: labgrade's "no GPU here", so a machine without one reports these as skipped.
    set_tests_properties(${tests} PROPERTIES LABELS "${backend};lab" SKIP_RETURN_CODE 77
                                             TIMEOUT 900)
    if(backend STREQUAL "gpu")
      # Full marks include the speed points, timed against the references: nothing else may
      # share the GPU meanwhile.
      set_tests_properties(${id}.solution_full_marks_${backend} PROPERTIES RUN_SERIAL ON)
    endif()
  endforeach()
endfunction()

# Writes ${CMAKE_BINARY_DIR}/labkit_manifest.json once every lab is known.
function(labkit_write_manifest)
  get_property(gpu_libs GLOBAL PROPERTY LABKIT_GPU_LIBS)
  get_property(emu_libs GLOBAL PROPERTY LABKIT_EMU_LIBS)
  get_property(lab_dirs GLOBAL PROPERTY LABKIT_LAB_DIRS)
  string(REGEX REPLACE ",$" "" lab_dirs "${lab_dirs}")
  string(REGEX REPLACE ",$" "" gpu_libs "${gpu_libs}")
  string(REGEX REPLACE ",$" "" emu_libs "${emu_libs}")
  set(nvcc "")
  if(LABKIT_WITH_GPU)
    set(nvcc "${CMAKE_CUDA_COMPILER}")
  else()
    find_program(nvcc_probe nvcc PATHS /usr/local/cuda/bin)
    if(nvcc_probe)
      set(nvcc "${nvcc_probe}")
    endif()
  endif()
  set(emu_cxx "")
  set(boost_context "")
  set(zydis "")
  set(emu_include "")
  if(LABKIT_WITH_EMU)
    set(emu_cxx "$<TARGET_FILE:emu-cxx>")
    set(boost_context "$<TARGET_LINKER_FILE:Boost::context>")
    set(zydis "$<TARGET_LINKER_FILE:Zydis::Zydis>")
  endif()
  # What grading needs (the harness libraries pull in the common harness and emu's runtime):
  # `./kit check` builds this alone, leaving the tests to `./kit test`.
  get_property(grading_targets GLOBAL PROPERTY LABKIT_GRADING_TARGETS)
  add_custom_target(labkit_grading)
  add_dependencies(labkit_grading labgrade labkit_data ${grading_targets})
  if(LABKIT_WITH_EMU)
    add_dependencies(labkit_grading emu-cxx emu-rewrite)
  endif()
  set(gpu_replay_libs "")
  if(LABKIT_WITH_GPU)
    add_dependencies(labkit_grading labkit_replay_only_gpu labkit_harness_gpu)
    set(gpu_replay_libs "\"$<TARGET_FILE:labkit_replay_only_gpu>\", \"$<TARGET_FILE:labkit_harness_gpu>\"")
  endif()
  set(cuda_archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(NOT cuda_archs)
    set(cuda_archs 90)
  endif()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/labkit_manifest.json CONTENT "{
  \"source_dir\": \"${PROJECT_SOURCE_DIR}\",
  \"build_dir\": \"${CMAKE_BINARY_DIR}\",
  \"data_dir\": \"${LABKIT_DATA_DIR}\",
  \"cxx\": \"${CMAKE_CXX_COMPILER}\",
  \"nvcc\": \"${nvcc}\",
  \"cuda_architectures\": \"${cuda_archs}\",
  \"gpu_backend\": $<IF:$<BOOL:${LABKIT_WITH_GPU}>,true,false>,
  \"emu_backend\": $<IF:$<BOOL:${LABKIT_WITH_EMU}>,true,false>,
  \"emu_cxx\": \"${emu_cxx}\",
  \"boost_context\": \"${boost_context}\",
  \"zydis\": \"${zydis}\",
  \"common_include\": \"${PROJECT_SOURCE_DIR}/common/include\",
  \"harness_include\": \"${PROJECT_SOURCE_DIR}/common/harness\",
  \"gpu_libs\": {${gpu_libs}},
  \"gpu_replay_libs\": [${gpu_replay_libs}],
  \"emu_libs\": {${emu_libs}},
  \"lab_dirs\": {${lab_dirs}}
}
")
endfunction()
