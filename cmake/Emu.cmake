# Building .cu files for the CPU backend (emu): they are compiled by the host C++ compiler through
# the `emu-cxx` launcher, which preprocesses with the emulator's header, rewrites kernel launches
# and __shared__ declarations (emu-rewrite) and compiles the result. See docs/DESIGN.md.
#
#   emu_add_library(<target> [STATIC|SHARED|OBJECT] SOURCES <files...>
#                   [INCLUDE_DIRS <dirs...>] [LINK <libraries...>])
#   emu_add_executable(<target> SOURCES <files...> [INCLUDE_DIRS <dirs...>] [LINK <libraries...>])
#   emu_add_object(<target> ...)       # the same as emu_add_library(<target> OBJECT ...)
#
# .cu sources go through emu-cxx; .cpp sources compile normally. INCLUDE_DIRS and LINK are PUBLIC
# for libraries, so users of the target see them too; emu::runtime is always linked.
include_guard(GLOBAL)

# Where emu-cxx and emu-rewrite are built (emu/rewrite/CMakeLists.txt puts them there). Fixed at
# configure time so that targets defined before emu/ is processed can already name the launcher.
set(EMU_TOOLS_DIR "${PROJECT_BINARY_DIR}/emu-tools" CACHE INTERNAL "emu-cxx and emu-rewrite")
set(EMU_CXX_EXECUTABLE "${EMU_TOOLS_DIR}/emu-cxx${CMAKE_EXECUTABLE_SUFFIX}"
    CACHE INTERNAL "The CPU backend's compiler launcher: emu-cxx <c++ compiler> <args>")
set(EMU_REWRITE_EXECUTABLE "${EMU_TOOLS_DIR}/emu-rewrite${CMAKE_EXECUTABLE_SUFFIX}"
    CACHE INTERNAL "The CPU backend's source rewriter: emu-rewrite IN OUT")

# One wrapper `<binary dir>/emu_src/<path>.cu.cpp` per .cu file, holding `#include "<abs>.cu"`.
# The wrapper is an ordinary C++ source, so the .cu file itself never gets a LANGUAGE property
# (which would change how another target compiles it with nvcc), and emu-cxx recognises it by
# its name. Errors still point at the .cu file: its line markers survive preprocessing.
function(_emu_wrap_cuda_sources out_var)
  set(wrappers "")
  foreach(src IN LISTS ARGN)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
    if(rel MATCHES "^\\.\\./")  # outside this folder: keep names apart by a hash of the folder
      get_filename_component(dir "${abs}" DIRECTORY)
      get_filename_component(name "${abs}" NAME)
      string(MD5 hash "${dir}")
      string(SUBSTRING "${hash}" 0 8 hash)
      set(rel "external/${hash}/${name}")
    endif()
    set(wrapper "${CMAKE_CURRENT_BINARY_DIR}/emu_src/${rel}.cpp")
    file(CONFIGURE OUTPUT "${wrapper}" CONTENT "#include \"${abs}\"\n" @ONLY)
    # Rebuild when the launcher or the rewriter changes, not only when the source does.
    set_source_files_properties("${wrapper}" PROPERTIES
      OBJECT_DEPENDS "${EMU_CXX_EXECUTABLE};${EMU_REWRITE_EXECUTABLE}")
    list(APPEND wrappers "${wrapper}")
  endforeach()
  set(${out_var} "${wrappers}" PARENT_SCOPE)
endfunction()

# The part shared by emu_add_library and emu_add_executable, once the target exists.
function(_emu_setup_target target scope)
  cmake_parse_arguments(PARSE_ARGV 2 EMU "" "" "SOURCES;INCLUDE_DIRS;LINK")
  if(EMU_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "emu: ${target}: unexpected arguments ${EMU_UNPARSED_ARGUMENTS}")
  endif()
  set(cuda_sources "${EMU_SOURCES}")
  list(FILTER cuda_sources INCLUDE REGEX "\\.cu$")
  set(other_sources "${EMU_SOURCES}")
  list(FILTER other_sources EXCLUDE REGEX "\\.cu$")
  _emu_wrap_cuda_sources(wrappers ${cuda_sources})

  target_sources(${target} PRIVATE ${wrappers} ${other_sources})
  target_include_directories(${target} ${scope} ${EMU_INCLUDE_DIRS})
  target_link_libraries(${target} ${scope} emu::runtime ${EMU_LINK})
  # emu-cxx passes every source but the .cu wrappers to the compiler unchanged.
  set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${EMU_CXX_EXECUTABLE}")
  add_dependencies(${target} emu-cxx emu-rewrite)
endfunction()

function(emu_add_library target)
  set(kind "")
  if(ARGV1 MATCHES "^(STATIC|SHARED|OBJECT)$")
    set(kind "${ARGV1}")
    list(REMOVE_AT ARGN 0)
  endif()
  add_library(${target} ${kind})
  _emu_setup_target(${target} PUBLIC ${ARGN})
endfunction()

function(emu_add_executable target)
  add_executable(${target})
  _emu_setup_target(${target} PRIVATE ${ARGN})
endfunction()

function(emu_add_object target)
  emu_add_library(${target} OBJECT ${ARGN})
endfunction()
