#include "symbol_families.h"

#include <cstddef>
#include <string>

namespace labkit {
namespace symbol_families {
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

struct FamilyText {
  const char* pattern;  // ECMAScript regex, matched against the whole name
  const char* why;      // nullptr: allowed
  // On the CPU backend, what a call of an allowed function from kernel code does (InKernel).
  InKernel in_kernel = InKernel::kHostOnly;
};

// Refused on both backends, looked at before anything is allowed.
const FamilyText kRefused[] = {
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
    // cudaLaunchKernel itself is the one launch through the API that both backends record (the
    // GPU harness wraps it, the CPU backend's rewrite turns it into a launch): allowed below.
    {"cuda(Launch(?!Kernel(_ptsz)?$)|GetDriverEntryPoint|GetDriverEntryPointByVersion|"
     "GetFuncBySymbol|GetKernel|Library|Kernel|ConfigureCall|SetupArgument).*",
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
const FamilyText kAllowed[] = {
    // Printing to the terminal: only stdout and stderr can be named, since no file can be opened.
    // Kernels may print too (CUDA's device printf); what is printed cannot come back to them.
    {"puts|putchar|fputs|fputc|putc|fwrite|fflush|perror|stdout|stderr|stdin", nullptr,
     InKernel::kCallable},
    // The printf family's %n stores through a pointer, unseen by the count: a kernel's call goes
    // to the emulator's version, which refuses %n in kernel code (device_call_guard.h).
    {"printf|vprintf|fprintf|vfprintf|__(v?f?)printf_chk", nullptr, InKernel::kEmulated},
    // Into memory, or out of it: host code only.
    {"snprintf|sprintf|vsnprintf|vsprintf|setvbuf|setbuf|__v?sn?printf_chk|__isoc99_sscanf|"
     "sscanf",
     nullptr},
    // <cmath>, float and double (and long double) variants.
    {"(a?(sin|cos|tan)h?|atan2|exp|exp2|expm1|log|log2|log10|log1p|logb|ilogb|pow|sqrt|cbrt|hypot|"
     "fabs|fmin|fmax|fdim|fmod|fma|floor|ceil|round|lround|llround|trunc|rint|lrint|llrint|"
     "nearbyint|copysign|ldexp|scalbn|scalbln|erfc?|tgamma|lgamma|remainder|"
     "nextafter|nan)[fl]?|__(fpclassify|isinf|isnan|finite|signbit)[fl]?|"
     "__.*_finite",
     nullptr, InKernel::kCallable},
    // The maths that store a result through a pointer: stores the library makes unseen by the
    // count (a chosen byte anywhere, with frexpf), so a kernel's call goes to the emulator's
    // version, which reports them as the kernel's.
    {"(frexp|modf|remquo|sincos)[fl]?", nullptr, InKernel::kEmulated},
    // What CUDA device code may call as well (malloc, free, assert; abort for __trap).
    {"abort|malloc|calloc|realloc|free|aligned_alloc|posix_memalign|abs|labs|llabs|"
     "__assert_fail|__stack_chk_fail|__errno_location",
     nullptr, InKernel::kCallable},
    // Device code may copy and fill memory, and read a clock. The C library copies uninstrumented
    // and its clock is the process's: a kernel's call goes to the emulator's version
    // (device_call_guard.h).
    {"memcpy|memmove|memset|__memcpy_chk|__memset_chk|__memmove_chk|clock", nullptr,
     InKernel::kEmulated},
    {"exit|memcmp|memchr|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strstr|strcpy|strncpy|"
     "strcat|strncat|strdup|strerror|strto(l|ul|ll|ull|f|d|ld)|ato(i|l|ll|f)|qsort|bsearch|rand|"
     "srand|rand_r|clock_gettime|time|gettimeofday|__strcpy_chk|__strcat_chk|__strncpy_chk|"
     "__explicit_bzero_chk|isalpha|isdigit|isspace|toupper|tolower|__ctype_b_loc|"
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
     nullptr, InKernel::kCallable},
    // operator new and delete; std::__throw_*, std::terminate; exceptions and type information.
    {"_Z(nw|na|dl|da)[A-Za-z0-9_]*|_ZSt[0-9]+__throw_[a-z_]+.*|_ZSt9terminatev|"
     "_ZTVN10__cxxabiv1[0-9]+__(si_|vmi_|fundamental_|pointer_|function_)?(class_)?type_infoE|"
     "_ZTI[A-Za-z]{1,3}|_ZTIP?K?[a-z]|"
     "_Z(N|NK|TI|TS|TV)St[0-9]+(exception|bad_alloc|bad_array_new_length|bad_cast|"
     "bad_function_call|runtime_error|logic_error|out_of_range|invalid_argument|length_error|"
     "overflow_error|underflow_error|range_error|domain_error)[A-Za-z0-9_]*|"
     "_ZNSt13runtime_error.*|_ZNSt11logic_error.*|_ZNSt12out_of_range.*|"
     "_ZNSt16invalid_argument.*|_ZNSt12length_error.*",
     nullptr, InKernel::kCallable},
    // std::string, std::stringstream and the containers' out-of-line helpers.
    {"_Z(N|NK|TV|TT|TI|TS)St7__cxx11(12basic_string|15basic_stringbuf|18basic_stringstream|"
     "19basic_ostringstream|19basic_istringstream)I.*|_ZStpl.*|_ZNSt7__cxx119to_string.*|"
     "_ZNSt7__cxx11(4|5)sto[a-z]+.*|_ZSt[0-9]+_Rb_tree_[a-z_]+.*|_ZNSt8__detail15_List_node_base.*|"
     "_ZNKSt8__detail20_Prime_rehash_policy.*|_ZSt11_Hash_bytesPKvmm|"
     "_ZNSt8__detail15_Hash_node_base.*",
     nullptr},
    // std::cout, std::cerr and std::clog: the ostream, ios and locale members they use.
    {"_ZSt(4cout|4cerr|4clog|3cin)|_ZSt4endl.*|_ZSt21ios_base_library_initv|_ZSt5flush.*|"
     "_ZNSo.*|_ZNSi.*|_ZStlsI.*|_ZStrsI.*|_ZSt16__ostream_insert.*|_ZNSt8ios_base.*|"
     "_ZNSt9basic_iosIcSt11char_traitsIcEE.*|"
     "_ZNKSt9basic_iosIcSt11char_traitsIcEE.*|_ZNKSt5ctypeIcE.*|_ZNSt6locale.*|_ZNKSt6locale.*|"
     "_Z(N|TV)St15basic_streambufIcSt11char_traitsIcEE.*|_ZTVSt9basic_iosIcSt11char_traitsIcEE|"
     "_ZSt(4|3)(setw|setprecision|fixed)|_ZNSolsE.*",
     nullptr},
    // std::chrono's clocks; std::random_device.
    {"_ZNSt6chrono3_V212(steady|system)_clock3nowEv|_ZNSt13random_device.*", nullptr},
};

// GPU backend: what nvcc's generated code calls to register and launch the file's kernels
// (atexit included: the fatbinary is unregistered at exit), and the listed runtime calls.
const FamilyText kGpuAllowed[] = {
    {"__cuda(RegisterFatBinary|RegisterFatBinaryEnd|UnregisterFatBinary|RegisterFunction|"
     "RegisterVar|PushCallConfiguration|PopCallConfiguration|GetKernel|LaunchKernel|InitModule)|"
     "atexit",
     nullptr},
    // A launch written through the API: wrapped and recorded like a triple-chevron one
    // (common/harness/gpu_wraps/launch_wrap_gpu.cu).
    {"cudaLaunchKernel(_ptsz)?", nullptr},
    {kCudaRuntime, nullptr},
};

// CPU backend: what emu's headers call after the rewrite (launch, barriers, shared memory,
// warp functions, symbols, occupancy), the thread-index globals, and the listed runtime calls.
const FamilyText kCpuAllowed[] = {
    {"_ZN3emu6detail(6launch|13barrier_block|12barrier_warp|12thread_fence|13warp_exchange|"
     "18warp_exchange_done|10warp_value|10live_lanes|13static_shared|17dynamic_smem_base)"
     "[A-Z].*|_ZN3emu6detail17dynamic_smem_baseE|"
     "threadIdx|blockIdx|blockDim|gridDim|_Z7clock64v",
     nullptr, InKernel::kCallable},
    // cudaMemcpyToSymbol, the occupancy API and cudaLaunchKernel after the rewrite: host code's.
    {"_ZN3emu6detail(14copy_to_symbol|16copy_from_symbol|19note_symbol_address|"
     "24max_potential_block_size|"
     "18last_launch_status)[A-Z].*",
     nullptr},
    // What -fsanitize=thread adds to every access and function (labgrade check --tsan).
    {"__tsan_(init|func_entry|func_exit|(unaligned_|volatile_)?(read|write)(1|2|4|8|16)(_pc)?|"
     "(read|write)_range(_pc)?|vptr_update|vptr_read|atomic(8|16|32|64|128)_[a-z_]+|"
     "atomic_thread_fence|atomic_signal_fence|mem(cpy|set|move))",
     nullptr, InKernel::kCallable},
    // What the graded builds' kernel-AddressSanitizer instrumentation adds to every access, which
    // emu's runtime answers by counting (emu/runtime/src/access_hooks.cpp).
    {"__asan_((load|store)(1|2|4|8|16|N)_noabort|handle_no_return|before_dynamic_init|"
     "after_dynamic_init)",
     nullptr, InKernel::kCallable},
    // The emulator's copies, which __builtin_memcpy and kin are rewritten to, its count of an
    // atomic's read (emu/rewrite's uncounted_access.h), and CUDA's atomic functions, which do
    // their work in the runtime (labkit_emu/atomics.h).
    {"__emu_device_(memcpy|memmove|memset|atomic_read|atomic)", nullptr, InKernel::kCallable},
    {kCudaRuntime, nullptr},
};

// The CPU backend's other internals, and exit hooks the GPU backend's nvcc emits itself.
const FamilyText kCpuRefused[] = {
    {"_Z(N|NK|TV|TI|TS|ZN|GVZN)?3emu.*", kKitInternals},
    {"atexit", kExitHooks},
    // ThreadSanitizer's annotations (ignore, acquire/release, fibers): emu's to make.
    {"__tsan_.*|AnnotateHappens.*|AnnotateIgnore.*", kRaceAnnotations},
};

// Names a submission may not define: everything that is CUDA's, the kit's, the CPU backend's or
// the C/C++ implementation's (reserved names, std::, operator new and delete, main).
const FamilyText kReservedDefinitions[] = {
    {"main|_start|_init|_fini|__.*|_[A-Y].*|cuda.*|cu[A-Z].*|nvtx.*|"
     "_Z(N|NK|TV|TT|TI|TS|ZN|GVZN|GV)?(St|Sa|Sb|Ss|Si|So|Sd|6labkit|3emu|9__gnu_cxx|"
     "10__cxxabiv1|[0-9]+__).*|_Z(nw|na|dl|da).*|_ZSt.*|_ZNSt.*|"
     "_ZNKSt.*|_Z(N|NK|TV|TT|TI|TS|ZN|GVZN|GV)([0-9]+cuda|[0-9]+cu[A-Z]).*|threadIdx|blockIdx|"
     "blockDim|gridDim|stdout|stderr|stdin|environ|errno|optarg|"
     "optind|opterr|optopt|signgam|daylight|timezone|tzname",
     kReservedDefinition},
};

// Defined by every nvcc or emu-cxx object; fine as they are.
const FamilyText kGeneratedDefinitions[] = {
    {"DW\\.ref\\.__gxx_personality_v0|_Z[0-9]+__device_stub__.*", nullptr},
};

// std::function's base destructor is the header's alone (libstdc++ exports none to replace).
const FamilyText kHeaderInlineMembers[] = {
    {"_ZNKSt5ctypeIcE(8do_widenEc|9do_narrowEcc)|_ZNSt14_Function_baseD[12]Ev", nullptr},
};

struct CompiledFamily {
  std::regex pattern;
  const char* why;
};

template <std::size_t N>
Families Compile(const FamilyText (&families)[N]) {
  Families out;
  for (const FamilyText& f : families)
    out.push_back({std::regex(std::string("^(?:") + f.pattern + ")$", std::regex::optimize), f.why,
                   f.in_kernel});
  return out;
}

}  // namespace

const Lists& All() {
  static const Lists lists{Compile(kRefused),
                           Compile(kAllowed),
                           Compile(kGpuAllowed),
                           Compile(kCpuAllowed),
                           Compile(kCpuRefused),
                           Compile(kReservedDefinitions),
                           Compile(kGeneratedDefinitions),
                           Compile(kHeaderInlineMembers)};
  return lists;
}

}  // namespace symbol_families
}  // namespace labkit
