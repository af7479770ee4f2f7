#include "symbol_policy.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

namespace labkit {
namespace {

// Why a family is refused, as the student reads it after "which the grader does not allow: ".
constexpr const char* kDynamicLoading =
    "loading libraries or looking up functions at run time could hand the work to code that is "
    "not yours, out of the grader's sight";
constexpr const char* kSyscall = "a raw system call goes around everything the grader checks";
constexpr const char* kMemoryMapping =
    "changing memory mappings or their protection could switch off the grader's guard pages "
    "and records";
constexpr const char* kFiles =
    "your code may print to the terminal (printf, std::cout, std::cerr) but not open, read, write "
    "or change files: the grader's own files are beside your program";
constexpr const char* kFileStreams =
    "file streams open files, and the grader's own files are beside your program; print with "
    "std::cout or printf instead";
constexpr const char* kProcesses =
    "no lab starts, signals or inspects processes, and doing so could interfere with the grader";
constexpr const char* kThreads =
    "a thread of your own could keep working after your function returns (and slow down the "
    "code it is compared with); the GPU gives you all the parallelism a lab needs";
constexpr const char* kExitHooks =
    "code registered to run at exit runs after your function, while the grader finishes its "
    "records";
constexpr const char* kSignals =
    "signal handlers and jumps out of them could hide the faults the grader reports (a read past "
    "the end of a buffer, say)";
constexpr const char* kEnvironment =
    "reading the environment lets a program tell which check is running, and a lab's result "
    "must not depend on that";
constexpr const char* kBuildProbe =
    "a weak reference to a hook of the grader's instrumented builds (the counting and "
    "ThreadSanitizer builds, whose calls of it are ordinary references) only asks which build is "
    "running, and a lab's result must not depend on that";
constexpr const char* kHostVisibleMemory =
    "memory that both host code and kernels can reach lets the host compute what your kernels "
    "should; use cudaMalloc and cudaMemcpy";
constexpr const char* kHostCallbacks =
    "it runs host code from a stream, outside your function and out of the grader's sight";
constexpr const char* kGraphs =
    "graphs and stream capture launch work the grader cannot record launch by launch; launch "
    "your kernels with <<< >>>";
constexpr const char* kHiddenLaunch =
    "it launches a kernel the grader cannot record; launch your kernels with <<< >>>";
constexpr const char* kDeviceReset =
    "it destroys the device memory and state the grader's harness is using";
constexpr const char* kDeviceWide =
    "it changes the device for every kernel, the grader's own reference kernels too; set what "
    "your kernel needs on the kernel itself (cudaFuncSetAttribute, cudaFuncSetCacheConfig)";
constexpr const char* kPeerAndIpc =
    "it shares memory with other devices or processes, which no lab needs";
constexpr const char* kDriverApi =
    "the CUDA driver API works beneath the runtime calls the grader records; use the runtime API "
    "(cuda...)";
constexpr const char* kLibraryGemm =
    "a library would do the work the lab asks you to write; the product must come from your own "
    "kernels";
constexpr const char* kKitInternals =
    "it belongs to the grader's harness or to the CPU backend's internals, which a submission may "
    "not call";
constexpr const char* kRaceAnnotations =
    "it changes what ThreadSanitizer reports about your kernels' races";
constexpr const char* kOtherCuda =
    "the grader allows only the CUDA runtime calls the labs need (memory, copies, streams, "
    "events, errors, device and kernel attributes, occupancy), and this is not one of them";
constexpr const char* kNotListed =
    "the grader allows only the CUDA runtime calls and the C and C++ library functions the labs "
    "need (printing to the terminal, maths, strings, containers, memory, exceptions, clocks), and "
    "this is not one of them; ask your instructor if your code really needs it";
constexpr const char* kReservedDefinition =
    "it belongs to CUDA, to the kit or to the C/C++ library, and your definition would replace "
    "the real one inside the grader's harness; give your function or variable a name of its own";
constexpr const char* kKitTemplate =
    "it is an instance of a template with the kit's own types (labkit::...), which the grader's "
    "harness has too, and the linker keeps one copy for both: yours could replace the harness's. "
    "Your code needs none of the grader's types";
constexpr const char* kExternCFunction =
    "a function with C linkage (extern \"C\") can replace a C library function the grader's "
    "harness calls; drop the extern \"C\"";

struct Family {
  const char* pattern;  // ECMAScript regex, matched against the whole name
  const char* why;      // nullptr: allowed
};

// Refused on both backends, looked at before anything is allowed.
const Family kRefused[] = {
    {"dlopen|dlmopen|dlsym|dlvsym|dladdr1?|dlinfo|dlerror|dlclose|dl_iterate_phdr|_dl_.*|"
     "__libc_dl.*|_r_debug|_dl_sym",
     kDynamicLoading},
    {"syscall|__syscall.*|__libc_syscall", kSyscall},
    {"mmap(64)?|munmap|mprotect|pkey_.*|madvise|mremap|brk|sbrk|msync|m(un)?lock(all)?|"
     "memfd_create|shm_open|shm_unlink|process_vm_.*|__mprotect|__mmap",
     kMemoryMapping},
    {"(__)?open(64|at|at64|at2)?(_2)?|creat(64)?|fopen(64)?|freopen(64)?|fdopen|tmpfile(64)?|"
     "mk[os]?temp(s)?(64)?|tmpnam(_r)?|(p)?write(v)?(64)?|pwritev2?|(__)?read(_chk)?|pread(64)?|"
     "readv|preadv2?|close|close_range|dup[23]?|fcntl(64)?|ioctl|unlink(at)?|remove|rename(at2?)?|"
     "symlink(at)?|link(at)?|mkfifo(at)?|mknod(at)?|truncate(64)?|ftruncate(64)?|f?chmod(at)?|"
     "[lf]?chown(at)?|mkdir(at)?|rmdir|f?chdir|chroot|(fd)?opendir|readdir(64)?(_r)?|closedir|"
     "scandir(64)?|getcwd|get_current_dir_name|(__)?(l|f)?x?stat(at)?(64)?|statx|access|"
     "faccessat2?|realpath|fclose|fread(_unlocked)?|fseeko?(64)?|ftello?(64)?|rewind|fgets|fgetc|"
     "getc|getline|getdelim|fscanf|__isoc99_fscanf|fileno|fsync|fdatasync|sendfile(64)?|splice|"
     "tee|copy_file_range|inotify_.*|fanotify_.*|posix_fadvise(64)?|fallocate(64)?|utimes?|"
     "utimensat|futimens|_IO_.*|__uflow|__overflow|flock|lockf(64)?|mount|umount2?|"
     "name_to_handle_at|open_by_handle_at",
     kFiles},
    // std::ofstream, std::ifstream, std::fstream, their buffer, std::filesystem.
    {"_Z(TV|TT|TI|TS|N|NK)St(14basic_(o|i)fstream|13basic_fstream|13basic_filebuf|"
     "12__basic_file)I.*|_ZN?K?St10filesystem.*|_ZN?K?St10filesystem7__cxx11.*",
     kFileStreams},
    {"fork|vfork|__fork|clone3?|__clone|exec(v|vp|vpe|ve|l|lp|le)|fexecve|posix_spawnp?|system|"
     "popen|pclose|wait|waitpid|wait3|wait4|waitid|kill|killpg|tgkill|tkill|raise|ptrace|prctl|"
     "setsid|setpgid|setpgrp|getpgid|getppid|prlimit(64)?|setrlimit(64)?|set(res|re|e)?[ug]id|"
     "daemon|pidfd_.*|unshare|setns|personality|sched_setaffinity|sched_setscheduler|nice|"
     "setpriority|_exit|_Exit|quick_exit|abort_on_.*",
     kProcesses},
    {"pthread_create|pthread_detach|pthread_kill|thrd_create|timer_create|"
     "_ZNSt6thread.*|_ZNSt10jthread.*|_ZNSt13__future_base.*|_ZSt5async.*|GOMP_.*|omp_.*|"
     "__kmpc_.*",
     kThreads},
    {"at_quick_exit|on_exit|__cxa_thread_atexit(_impl)?|_ZSt13set_terminate.*", kExitHooks},
    {"signal|sigaction|__sysv_signal|bsd_signal|sigset|sigprocmask|pthread_sigmask|sigaltstack|"
     "(__)?sigsetjmp|siglongjmp|_?setjmp|_?longjmp|__longjmp_chk|alarm|ualarm|setitimer|pause|"
     "sigsuspend|sigwait(info)?",
     kSignals},
    {"(secure_|__secure_)?getenv|setenv|unsetenv|putenv|clearenv|_?_?environ|getauxval|"
     "__libc_enable_secure|program_invocation(_short)?_name|__progname(_full)?",
     kEnvironment},
    // CUDA: memory the host can reach, host callbacks, graphs, launches the harness cannot see.
    {"cuda(MallocHost|HostAlloc|FreeHost|HostRegister|HostUnregister|HostGetDevicePointer|"
     "HostGetFlags|MallocManaged|MemPrefetchAsync|MemAdvise|MemRangeGetAttributes?)(_v2)?"
     "(_ptds|_ptsz)?|__cudaRegisterManagedVar",
     kHostVisibleMemory},
    {"cuda(LaunchHostFunc|StreamAddCallback)(_ptsz)?", kHostCallbacks},
    {"cuda(Graph|StreamBeginCapture|StreamEndCapture|StreamGetCaptureInfo|StreamIsCapturing|"
     "ThreadExchangeStreamCaptureMode|UserObject|StreamUpdateCaptureDependencies).*",
     kGraphs},
    {"cuda(LaunchKernel|LaunchKernelExC|LaunchCooperativeKernel|LaunchCooperativeKernelMultiDevice|"
     "Launch|GetDriverEntryPoint|GetDriverEntryPointByVersion|GetFuncBySymbol|GetKernel|"
     "Library|Kernel|ConfigureCall|SetupArgument).*",
     kHiddenLaunch},
    {"cudaDeviceReset|cudaThreadExit", kDeviceReset},
    {"cuda(DeviceSetCacheConfig|DeviceSetSharedMemConfig|DeviceSetLimit|CtxResetPersistingL2Cache|"
     "DeviceSetMemPool|SetDeviceFlags|SetValidDevices|DeviceSetGraphMemAttribute|"
     "ThreadSetCacheConfig|ThreadSetLimit)(_v2)?",
     kDeviceWide},
    {"cuda(Ipc|ImportExternal|ExternalMemory|DestroyExternal|SignalExternal|WaitExternal|"
     "DeviceEnablePeerAccess|DeviceDisablePeerAccess|MemcpyPeer).*",
     kPeerAndIpc},
    {"cu[A-Z].*", kDriverApi},
    {"(cublas|cublasLt|cusparse|cufft|curand|cusolver|cudnn|cutensor|nvrtc|nvJitLink|nppi?|"
     "cutlass).*|cblas_.*|[sdcz]gemm_?|[sdcz]gemv_?|openblas_.*|mkl_.*|MKL_.*|"
     "_ZN?K?[0-9]+(cublas|cutlass|cute|Eigen|arma|blaze).*",
     kLibraryGemm},
    // The kit's own code (labkit::), and everything of emu's runtime not listed as allowed below.
    {"_Z(N|NK|TV|TI|TS|ZN|GVZN)?6labkit.*|__wrap_.*|__real_.*", kKitInternals},
};

// CUDA runtime calls the labs use, by their plain names (GPU) or identifiers (CPU backend).
constexpr const char* kCudaRuntime =
    "cuda(GetLastError|PeekAtLastError|GetErrorString|GetErrorName|GetDeviceCount|GetDevice|"
    "SetDevice|GetDeviceProperties|DeviceGetAttribute|DeviceSynchronize|"
    "DeviceGetCacheConfig|DeviceGetLimit|DriverGetVersion|RuntimeGetVersion|MemGetInfo|Malloc|"
    "MallocPitch|Free|Memcpy|MemcpyAsync|Memcpy2D|Memcpy2DAsync|Memset|MemsetAsync|Memset2D|"
    "Memset2DAsync|MemcpyToSymbol|MemcpyToSymbolAsync|MemcpyFromSymbol|MemcpyFromSymbolAsync|"
    "GetSymbolAddress|GetSymbolSize|PointerGetAttributes|StreamCreate|StreamCreateWithFlags|"
    "StreamCreateWithPriority|StreamDestroy|StreamSynchronize|StreamQuery|StreamWaitEvent|"
    "EventCreate|EventCreateWithFlags|EventRecord|EventRecordWithFlags|EventSynchronize|"
    "EventQuery|EventElapsedTime|EventDestroy|FuncGetAttributes|FuncSetAttribute|"
    "FuncSetCacheConfig|FuncSetSharedMemConfig|OccupancyMaxActiveBlocksPerMultiprocessor|"
    "OccupancyMaxActiveBlocksPerMultiprocessorWithFlags|OccupancyAvailableDynamicSMemPerBlock|"
    "MallocAsync|FreeAsync)(_v2)?(_ptds|_ptsz)?";

// C and C++ library families every lab may use: the terminal, maths, memory and strings,
// containers, exceptions, clocks, the compiler's own support code.
const Family kAllowed[] = {
    // Printing to the terminal: only stdout and stderr can be named, since no file can be opened.
    {"printf|vprintf|puts|putchar|fputs|fputc|putc|fwrite|fflush|fprintf|vfprintf|snprintf|"
     "sprintf|vsnprintf|vsprintf|perror|setvbuf|setbuf|stdout|stderr|stdin|__(v?f?s?n?)printf_chk|"
     "__isoc99_sscanf|sscanf",
     nullptr},
    // <cmath>, float and double (and long double) variants.
    {"(a?(sin|cos|tan)h?|atan2|exp|exp2|expm1|log|log2|log10|log1p|logb|ilogb|pow|sqrt|cbrt|hypot|"
     "fabs|fmin|fmax|fdim|fmod|fma|floor|ceil|round|lround|llround|trunc|rint|lrint|llrint|"
     "nearbyint|copysign|ldexp|frexp|modf|scalbn|scalbln|erfc?|tgamma|lgamma|remainder|remquo|"
     "nextafter|nan|sincos)[fl]?|__(fpclassify|isinf|isnan|finite|signbit)[fl]?|"
     "__.*_finite",
     nullptr},
    {"abort|exit|malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memcpy|memmove|memset|"
     "memcmp|memchr|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strstr|strcpy|strncpy|strcat|"
     "strncat|strdup|strerror|strto(l|ul|ll|ull|f|d|ld)|ato(i|l|ll|f)|abs|labs|llabs|qsort|bsearch|"
     "rand|srand|rand_r|clock|clock_gettime|time|gettimeofday|__assert_fail|__stack_chk_fail|"
     "__errno_location|__memcpy_chk|__memset_chk|__memmove_chk|__strcpy_chk|__strcat_chk|"
     "__strncpy_chk|__explicit_bzero_chk|isalpha|isdigit|isspace|toupper|tolower|__ctype_b_loc|"
     "__ctype_tolower_loc|__ctype_toupper_loc",
     nullptr},
    // The compiler's support code: exceptions, guards of local statics, static destructors
    // (__cxa_atexit: every global std::string or std::vector with a destructor), unwinding.
    {"__cxa_(allocate_exception|free_exception|throw|rethrow|begin_catch|end_catch|"
     "get_exception_ptr|guard_acquire|guard_release|guard_abort|pure_virtual|deleted_virtual|"
     "atexit|bad_cast|bad_typeid|throw_bad_array_new_length|call_unexpected|"
     "current_exception_type)|__dso_handle|__gxx_personality_v0|_Unwind_Resume|"
     "_GLOBAL_OFFSET_TABLE_|DW\\.ref\\.__gxx_personality_v0|__gmon_start__|_ITM_.*|__tls_get_addr|"
     // libgcc's helpers: __builtin_popcount without -mpopcnt, 128-bit division, complex maths.
     "__(popcount|parity|clz|ctz|ffs|bswap)[sdt]i2|__(u?div|u?mod|mul)[sdt]i3|__powi[sdtx]f2|"
     "__(mul|div)[sdtx]c3",
     nullptr},
    // operator new and delete; std::__throw_*, std::terminate; exceptions and type information.
    {"_Z(nw|na|dl|da)[A-Za-z0-9_]*|_ZSt[0-9]+__throw_[a-z_]+.*|_ZSt9terminatev|"
     "_ZTVN10__cxxabiv1[0-9]+__(si_|vmi_|fundamental_|pointer_)?(class_)?type_infoE|"
     "_ZTI[A-Za-z]{1,3}|_ZTIP?K?[a-z]|"
     "_Z(N|NK|TI|TS|TV)St[0-9]+(exception|bad_alloc|bad_array_new_length|bad_cast|"
     "bad_function_call|runtime_error|logic_error|out_of_range|invalid_argument|length_error|"
     "overflow_error|underflow_error|range_error|domain_error)[A-Za-z0-9_]*|"
     "_ZNSt13runtime_error.*|_ZNSt11logic_error.*|_ZNSt12out_of_range.*|"
     "_ZNSt16invalid_argument.*|_ZNSt12length_error.*",
     nullptr},
    // std::string, std::stringstream and the containers' out-of-line helpers.
    {"_Z(N|NK|TV|TT|TI|TS)St7__cxx11(12basic_string|15basic_stringbuf|18basic_stringstream|"
     "19basic_ostringstream|19basic_istringstream)I.*|_ZStpl.*|_ZNSt7__cxx119to_string.*|"
     "_ZNSt7__cxx11(4|5)sto[a-z]+.*|_ZSt[0-9]+_Rb_tree_[a-z_]+.*|_ZNSt8__detail15_List_node_base.*|"
     "_ZNKSt8__detail20_Prime_rehash_policy.*|_ZSt11_Hash_bytesPKvmm|"
     "_ZNSt8__detail15_Hash_node_base.*",
     nullptr},
    // std::cout, std::cerr and std::clog: the ostream, ios and locale members they use.
    {"_ZSt(4cout|4cerr|4clog|3cin)|_ZSt4endl.*|_ZSt5flush.*|_ZNSo.*|_ZNSi.*|_ZStlsI.*|"
     "_ZStrsI.*|_ZSt16__ostream_insert.*|_ZNSt8ios_base.*|_ZNSt9basic_iosIcSt11char_traitsIcEE.*|"
     "_ZNKSt9basic_iosIcSt11char_traitsIcEE.*|_ZNKSt5ctypeIcE.*|_ZNSt6locale.*|_ZNKSt6locale.*|"
     "_Z(N|TV)St15basic_streambufIcSt11char_traitsIcEE.*|_ZTVSt9basic_iosIcSt11char_traitsIcEE|"
     "_ZSt(4|3)(setw|setprecision|fixed)|_ZNSolsE.*",
     nullptr},
    // std::chrono's clocks; std::random_device.
    {"_ZNSt6chrono3_V212(steady|system)_clock3nowEv|_ZNSt13random_device.*", nullptr},
};

// GPU backend: what nvcc's generated code calls to register and launch the file's kernels
// (atexit included: the fatbinary is unregistered at exit), and the listed runtime calls.
const Family kGpuAllowed[] = {
    {"__cuda(RegisterFatBinary|RegisterFatBinaryEnd|UnregisterFatBinary|RegisterFunction|"
     "RegisterVar|PushCallConfiguration|PopCallConfiguration|GetKernel|LaunchKernel|InitModule)|"
     "atexit",
     nullptr},
    {kCudaRuntime, nullptr},
};

// CPU backend: what emu's headers call after the rewrite (launch, barriers, shared memory,
// warp functions, symbols, occupancy), the thread-index globals, and the listed runtime calls.
const Family kCpuAllowed[] = {
    {"_ZN3emu6detail(6launch|13barrier_block|12barrier_warp|12thread_fence|13warp_exchange|"
     "18warp_exchange_done|10live_lanes|13poison_shared|16block_generation|17dynamic_smem_base|"
     "14copy_to_symbol|16copy_from_symbol|24max_potential_block_size)[A-Z].*|"
     "_ZN3emu6detail16block_generationE|_ZN3emu6detail17dynamic_smem_baseE|"
     "threadIdx|blockIdx|blockDim|gridDim|_Z7clock64v",
     nullptr},
    // What -fsanitize=thread adds to every access and function (labgrade check --tsan).
    {"__tsan_(init|func_entry|func_exit|(unaligned_|volatile_)?(read|write)(1|2|4|8|16)(_pc)?|"
     "(read|write)_range(_pc)?|vptr_update|vptr_read|atomic(8|16|32|64|128)_[a-z_]+|"
     "atomic_thread_fence|atomic_signal_fence|mem(cpy|set|move))",
     nullptr},
    // What the counting build's kernel-AddressSanitizer instrumentation adds to every access, which
    // emu's runtime answers by counting (emu/runtime/src/access_hooks.cpp).
    {"__asan_((load|store)(1|2|4|8|16|N)_noabort|handle_no_return|before_dynamic_init|"
     "after_dynamic_init)",
     nullptr},
    {kCudaRuntime, nullptr},
};

// The CPU backend's other internals, and exit hooks the GPU backend's nvcc emits itself.
const Family kCpuRefused[] = {
    {"_Z(N|NK|TV|TI|TS|ZN|GVZN)?3emu.*", kKitInternals},
    {"atexit", kExitHooks},
    // ThreadSanitizer's annotations (ignore, acquire/release, fibers): emu's to make.
    {"__tsan_.*|AnnotateHappens.*|AnnotateIgnore.*", kRaceAnnotations},
};

// Names a submission may not define: everything that is CUDA's, the kit's, the CPU backend's or
// the C/C++ implementation's (reserved names, std::, operator new and delete, main).
const Family kReservedDefinitions[] = {
    {"main|_start|_init|_fini|__.*|_[A-Y].*|cuda.*|cu[A-Z].*|nvtx.*|"
     "_Z(N|NK|TV|TT|TI|TS|ZN|GVZN|GV)?(St|Sa|Sb|Ss|Si|So|Sd|6labkit|3emu|9__gnu_cxx|"
     "10__cxxabiv1|[0-9]+cuda|[0-9]+cu[A-Z]|[0-9]+__).*|_Z(nw|na|dl|da).*|_ZSt.*|_ZNSt.*|"
     "_ZNKSt.*|threadIdx|blockIdx|blockDim|gridDim|stdout|stderr|stdin|environ|errno|optarg|"
     "optind|opterr|optopt|signgam|daylight|timezone|tzname",
     kReservedDefinition},
};

// Defined by every nvcc or emu-cxx object; fine as they are.
const Family kGeneratedDefinitions[] = {
    {"DW\\.ref\\.__gxx_personality_v0|_Z[0-9]+__device_stub__.*", nullptr},
};

struct CompiledFamily {
  std::regex pattern;
  const char* why;
};

template <std::size_t N>
std::vector<CompiledFamily> Compile(const Family (&families)[N]) {
  std::vector<CompiledFamily> out;
  for (const Family& f : families)
    out.push_back(
        {std::regex(std::string("^(?:") + f.pattern + ")$", std::regex::optimize), f.why});
  return out;
}

// The first family of `families` that `name` belongs to, or nullptr.
const CompiledFamily* Find(const std::vector<CompiledFamily>& families, const std::string& name) {
  for (const CompiledFamily& f : families)
    if (std::regex_match(name, f.pattern)) return &f;
  return nullptr;
}

// `_Z10cudaMallocPPvm` -> `cudaMalloc`: a C++ function at global scope, named by its identifier,
// which is how the CPU backend's runtime API functions (and a C function declared without
// extern "C") appear. Other names are returned unchanged.
std::string Identifier(const std::string& name) {
  if (name.size() < 4 || name.compare(0, 2, "_Z") != 0 ||
      !std::isdigit(static_cast<unsigned char>(name[2])))
    return name;
  std::size_t digits = 2;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  const std::size_t length = std::stoul(name.substr(2, digits - 2));
  if (digits + length > name.size()) return name;
  return name.substr(digits, length);
}

std::string Demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// A template's instantiation (std::vector<float>::..., emu::block_shared<...>): the compiler
// emits one, weak, in every object that uses it. Read from the mangled name: some part of the
// entity's (nested) name carries template arguments (`I...E` right after a name), as in
// `_ZNSt6vectorIfSaIfEE17_M_default_appendEm` or `_ZN3emu12block_sharedIA16_A16_fLi1EEERT_v`;
// local statics (`_ZZ`) and their guards (`_ZGVZ`) are judged by their function.
bool IsTemplateInstance(const std::string& name) {
  std::size_t i = 0;
  for (const char* prefix : {"_ZGVZ", "_ZZ", "_ZGV", "_Z"})
    if (name.compare(0, std::strlen(prefix), prefix) == 0) {
      i = std::strlen(prefix);
      break;
    }
  if (i == 0) return false;
  if (i < name.size() && name[i] == 'N') ++i;
  while (i < name.size() && (name[i] == 'K' || name[i] == 'V' || name[i] == 'r')) ++i;
  while (i < name.size()) {
    if (name.compare(i, 2, "St") == 0) {
      i += 2;
    } else if (std::isdigit(static_cast<unsigned char>(name[i]))) {
      std::size_t digits = i;
      while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits])))
        ++digits;
      i = digits + std::stoul(name.substr(i, digits - i));
    } else {
      return false;
    }
    if (i < name.size() && name[i] == 'I') return true;
  }
  return false;
}

// Whether a mangled name mentions the kit's namespace `labkit` in any part, the entity's scope
// or a template argument (std::vector<labkit::LaunchRecord>): "6labkit" where the 6 is a whole
// length ("16labkitfoobarbaz", a longer name, does not count).
bool MentionsKitNamespace(const std::string& name) {
  for (std::size_t at = name.find("6labkit"); at != std::string::npos;
       at = name.find("6labkit", at + 1))
    if (at == 0 || !std::isdigit(static_cast<unsigned char>(name[at - 1]))) return true;
  return false;
}

SymbolRefusal Refusal(const ObjectSymbol& symbol, const char* why) {
  return {symbol.name, Demangled(symbol.name), symbol.defined(), why};
}

std::optional<SymbolRefusal> JudgeDefinition(const ObjectSymbol& symbol) {
  static const auto generated = Compile(kGeneratedDefinitions);
  static const auto reserved = Compile(kReservedDefinitions);
  static const auto refused = Compile(kRefused);
  static const auto allowed = Compile(kAllowed);
  if (Find(generated, symbol.name)) return std::nullopt;
  // A name that could be called is a library's name: defining it would replace the library's,
  // for the harness too (even weakly: an executable's definition comes before a shared
  // library's, so an "inline" std::ostream member would replace libstdc++'s).
  const std::string id = Identifier(symbol.name);
  if (Find(refused, symbol.name) || Find(allowed, symbol.name) || Find(refused, id))
    return Refusal(symbol, kReservedDefinition);
  // Templates' instantiations (std::vector<float>::..., emu::block_shared<...>) and inline
  // variables (std::piecewise_construct): the compiler emits them, weak, in every object that
  // uses them.
  const bool weak = symbol.type == 'W' || symbol.type == 'V' || symbol.type == 'u';
  const bool std_data = (symbol.type == 'V' || symbol.type == 'u') &&
                        (symbol.name.rfind("_ZSt", 0) == 0 || symbol.name.rfind("_ZNSt", 0) == 0);
  // ... except those with the kit's own types. The linker keeps one copy of each instance, so a
  // student's std::vector<labkit::LaunchRecord> made with a LaunchRecord of another size could
  // be the one the harness grows its records with.
  if (weak && MentionsKitNamespace(symbol.name)) return Refusal(symbol, kKitTemplate);
  if (weak && (std_data || IsTemplateInstance(symbol.name))) return std::nullopt;
  if (const CompiledFamily* f = Find(reserved, symbol.name)) return Refusal(symbol, f->why);
  // Unmangled code is extern "C" (unmangled data is an ordinary C++ global: `int counter;`).
  const bool code = symbol.type == 'T' || symbol.type == 'W' || symbol.type == 'i';
  if (code && symbol.name.compare(0, 2, "_Z") != 0) return Refusal(symbol, kExternCFunction);
  return std::nullopt;
}

std::optional<SymbolRefusal> JudgeReference(const ObjectSymbol& symbol, Backend backend) {
  static const auto refused = Compile(kRefused);
  static const auto allowed = Compile(kAllowed);
  static const auto gpu_allowed = Compile(kGpuAllowed);
  static const auto cpu_allowed = Compile(kCpuAllowed);
  static const auto cpu_refused = Compile(kCpuRefused);
  static const std::regex cuda_name("^(cuda|cu[A-Z]).*");
  static const std::regex sanitizer_hook("^__(asan|tsan)_.*");
  // Weak: null where no object defines it. The hooks are defined only in the builds instrumented
  // for them, so `&__asan_load4_noabort != nullptr` would tell the counting build from the others.
  if ((symbol.type == 'w' || symbol.type == 'v') && std::regex_match(symbol.name, sanitizer_hook))
    return Refusal(symbol, kBuildProbe);
  const bool gpu = backend == Backend::kGpu;
  // On the CPU backend the runtime API is C++: judge `_Z10cudaMallocPPvm` as `cudaMalloc`.
  const std::string id = gpu ? symbol.name : Identifier(symbol.name);
  for (const std::string* name : {&symbol.name, &id}) {
    if (const CompiledFamily* f = Find(refused, *name)) return Refusal(symbol, f->why);
    if (!gpu && Find(cpu_allowed, *name)) return std::nullopt;  // before emu's other internals
    if (const CompiledFamily* f = gpu ? nullptr : Find(cpu_refused, *name))
      return Refusal(symbol, f->why);
    if (Find(allowed, *name) || Find(gpu ? gpu_allowed : cpu_allowed, *name)) return std::nullopt;
  }
  if (std::regex_match(id, cuda_name)) return Refusal(symbol, kOtherCuda);
  return Refusal(symbol, kNotListed);
}

}  // namespace

std::vector<ObjectSymbol> ParseNmListing(const std::string& listing) {
  std::vector<ObjectSymbol> symbols;
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    const std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    // "ADDRESS TYPE NAME" for a definition, "TYPE NAME" (no address) for a reference.
    if (f.size() < 2 || f.size() > 3 || f[f.size() - 2].size() != 1) continue;
    ObjectSymbol s;
    s.type = f[f.size() - 2][0];
    s.name = f.back().substr(0, f.back().find('@'));
    symbols.push_back(s);
  }
  return symbols;
}

std::optional<SymbolRefusal> JudgeSymbol(const ObjectSymbol& symbol, Backend backend) {
  return symbol.defined() ? JudgeDefinition(symbol) : JudgeReference(symbol, backend);
}

std::vector<SymbolRefusal> RefusedSymbols(const std::vector<ObjectSymbol>& symbols,
                                          Backend backend) {
  std::vector<SymbolRefusal> refused;
  std::set<std::string> seen;
  for (const ObjectSymbol& s : symbols)
    if (seen.insert(s.name).second)
      if (auto r = JudgeSymbol(s, backend)) refused.push_back(*r);
  return refused;
}

std::string RefusalMessage(const std::string& file, const std::vector<SymbolRefusal>& refused) {
  // One line per reason, naming the first few symbols of it: a std::ofstream alone brings a
  // dozen names of one family.
  constexpr std::size_t kNamesPerLine = 3;
  std::vector<std::pair<const SymbolRefusal*, std::vector<std::string>>> lines;
  for (const SymbolRefusal& r : refused) {
    auto same = std::find_if(lines.begin(), lines.end(), [&](const auto& line) {
      return line.first->why == r.why && line.first->defined == r.defined;
    });
    if (same == lines.end()) same = lines.insert(lines.end(), {&r, {}});
    same->second.push_back(r.readable);
  }
  std::string text;
  for (const auto& [first, names] : lines) {
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < kNamesPerLine; ++i)
      list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    if (names.size() > kNamesPerLine)
      list += " (and " + std::to_string(names.size() - kNamesPerLine) + " more of the kind)";
    text += (text.empty() ? "" : "\n") + file + (first->defined ? " defines " : " uses ") + list +
            ", which the grader does not allow: " + first->why + ".";
  }
  return text;
}

}  // namespace labkit
