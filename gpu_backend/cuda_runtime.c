/* gradir's CUDA runtime, linked into every library `gradir.export(target="cuda")` writes.

   The host code (MLIR's LLVM dialect after gpu-to-llvm) calls MLIR's `mgpu*` runtime functions
   (module load, launch, alloc, free, streams); MLIR's own implementation,
   libmlir_cuda_runtime.so, is not in the MLIR wheel and links libcuda at build time. This file
   serves those calls over the CUDA driver API, which it opens with dlopen when the library is
   started (`gradir_cuda_start`), so that:
   - the library loads and its manifest can be read on a machine with no driver (`gradir.load`
     then raises a TargetError on call, with the message `gradir_cuda_error` returns);
   - nothing in a launch goes through Python (a ctypes callback per mgpu* call costs
     microseconds, as much as a small kernel);
   - C callers can use the library too (the header declares the `gradir_cuda_*` functions).

   Kernel images (`mgpuModuleLoad`'s data) are gradir's container: magic "GRDXKIMG", version,
   the sizes of a cubin (ptxas at export time; 0 bytes without ptxas) and of the PTX, then the
   two. The cubin is loaded first; if the driver refuses it (a driver older than the ptxas
   that wrote it, another chip), the PTX is JIT-compiled by the driver instead, and
   `gradir_cuda_images` counts which were used. GRADIR_CUDA_IMAGE=ptx (or cubin) forces one.

   Every driver failure is recorded (the first one, with the call that failed); later launches
   are skipped until `gradir_cuda_clear_error`, so a failed allocation never becomes a kernel
   writing through a null pointer. Nothing here aborts the process.

   GRADIR_CUDA_DRIVER=path loads another libcuda (tests use a recording fake). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GLIBC__)
/* The library is built on one machine and may run on another with an older C library: bind
   dl* to their original versions, which every glibc (also 2.34+, where libdl moved into libc)
   provides. */
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
#endif

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUmemoryPool;
typedef unsigned long long CUdeviceptr;

#define CU_STREAM_DEFAULT 0u
#define CU_JIT_OPTIMIZATION_LEVEL 7
#define CU_MEMPOOL_ATTR_RELEASE_THRESHOLD 4
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED 115

/* The driver functions used, resolved with dlsym; the optional ones may be missing. */
#define REQUIRED_FUNCTIONS(X)                                                                     \
  X(cuInit, (unsigned))                                                                           \
  X(cuDriverGetVersion, (int *))                                                                  \
  X(cuDeviceGet, (CUdevice *, int))                                                               \
  X(cuDeviceGetName, (char *, int, CUdevice))                                                     \
  X(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                            \
  X(cuDevicePrimaryCtxRelease_v2, (CUdevice))                                                     \
  X(cuCtxSetCurrent, (CUcontext))                                                                 \
  X(cuModuleLoadData, (CUmodule *, const void *))                                                 \
  X(cuModuleLoadDataEx, (CUmodule *, const void *, unsigned, int *, void **))                    \
  X(cuModuleUnload, (CUmodule))                                                                   \
  X(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                                  \
  X(cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,     \
                     unsigned, CUstream, void **, void **))                                       \
  X(cuStreamCreate, (CUstream *, unsigned))                                                       \
  X(cuStreamSynchronize, (CUstream))                                                              \
  X(cuMemAlloc_v2, (CUdeviceptr *, size_t))                                                       \
  X(cuMemFree_v2, (CUdeviceptr))                                                                  \
  X(cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t))                                         \
  X(cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t))                                               \
  X(cuMemcpyAsync, (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                  \
  X(cuCtxSynchronize, (void))                                                                     \
  X(cuGetErrorName, (CUresult, const char **))

#define OPTIONAL_FUNCTIONS(X)                                                                     \
  X(cuDeviceGetAttribute, (int *, int, CUdevice))                                                 \
  X(cuDeviceGetDefaultMemPool, (CUmemoryPool *, CUdevice))                                        \
  X(cuMemPoolSetAttribute, (CUmemoryPool, int, void *))                                           \
  X(cuMemAllocAsync, (CUdeviceptr *, size_t, CUstream))                                           \
  X(cuMemFreeAsync, (CUdeviceptr, CUstream))

#define DECLARE(name, parameters) CUresult(*name) parameters;
static struct {
  REQUIRED_FUNCTIONS(DECLARE)
  OPTIONAL_FUNCTIONS(DECLARE)
} cu;
#undef DECLARE

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started;              /* 0: not tried, 1: running, -1: failed (for good) */
static char error[1024];         /* the first failure since the last clear */
static CUdevice device;
static CUcontext context;
static bool stream_ordered;      /* cuMemAllocAsync on the device's pool */
static char device_text[512];
static int64_t images[2];        /* kernel modules loaded from a cubin, from PTX */
static char fallback[512];       /* why a cubin was refused (the first time) */
static uint64_t launches;

/* Launches per kernel, for `gradir_cuda_kernel_launches`: an open-addressing table keyed by
   the CUfunction (a launch finds its slot in O(1); the LSTM gradient launches 7 000 kernels a
   step). A slot's function is set once, under the lock, by mgpuModuleGetFunction; the name is
   the host code's constant string. */
#define KERNEL_SLOTS 8192
static struct {
  CUfunction function;
  const char *name;
  uint64_t count;
} kernel_table[KERNEL_SLOTS];

static size_t kernel_slot(CUfunction function) {
  size_t slot = ((uintptr_t)function >> 4) * 0x9E3779B97F4A7C15ull % KERNEL_SLOTS;
  for (size_t probe = 0; probe < KERNEL_SLOTS; ++probe, slot = (slot + 1) % KERNEL_SLOTS) {
    CUfunction held = __atomic_load_n(&kernel_table[slot].function, __ATOMIC_ACQUIRE);
    if (held == function || !held) return slot;
  }
  return KERNEL_SLOTS; /* full: not counted */
}

static void remember_kernel(CUfunction function, const char *name) {
  pthread_mutex_lock(&lock);
  size_t slot = kernel_slot(function);
  if (slot < KERNEL_SLOTS && !kernel_table[slot].function) {
    kernel_table[slot].name = name;
    __atomic_store_n(&kernel_table[slot].function, function, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
}

static void count_launch(CUfunction function) {
  size_t slot = kernel_slot(function);
  if (slot < KERNEL_SLOTS && kernel_table[slot].function == function)
    __atomic_add_fetch(&kernel_table[slot].count, 1, __ATOMIC_RELAXED);
}
static __thread CUstream thread_stream;

static void fail(const char *format, ...) {
  pthread_mutex_lock(&lock);
  if (!error[0]) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, sizeof error, format, arguments);
    va_end(arguments);
  }
  pthread_mutex_unlock(&lock);
}

static const char *error_name(CUresult status) {
  const char *name = 0;
  if (cu.cuGetErrorName && cu.cuGetErrorName(status, &name) == 0 && name) return name;
  return "CUDA_ERROR_UNKNOWN";
}

/* Whether `status` is success; records the failure of `call` otherwise. */
static bool ok(CUresult status, const char *call) {
  if (status == 0) return true;
  fail("%s failed: %s (%d)", call, error_name(status), status);
  return false;
}

static bool failed(void) { return error[0] != 0; }

/* ------------------------------------------------------------------ starting the driver */

#ifdef GRADIR_HOST_INIT
/* What the host code's global constructors became (one module load per kernel): ORC's JIT
   turns llvm.global_ctors into this function, which a library must call itself. */
extern void gradir_host_init(void) __asm__(GRADIR_HOST_INIT);
extern void gradir_host_deinit(void) __asm__(GRADIR_HOST_DEINIT);
#endif

static bool open_driver(void) {
  const char *path = getenv("GRADIR_CUDA_DRIVER");
  if (!path || !*path) path = "libcuda.so.1";
  void *driver = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    const char *why = dlerror();
    fail("no CUDA driver: %s could not be loaded (%s)", path, why ? why : "dlopen failed");
    return false;
  }
#define RESOLVE(name, parameters) *(void **)&cu.name = dlsym(driver, #name);
  REQUIRED_FUNCTIONS(RESOLVE)
  OPTIONAL_FUNCTIONS(RESOLVE)
#undef RESOLVE
#define CHECK(name, parameters)                                                                   \
  if (!cu.name) {                                                                                 \
    fail("the CUDA driver %s lacks %s", path, #name);                                             \
    return false;                                                                                 \
  }
  REQUIRED_FUNCTIONS(CHECK)
#undef CHECK
  return true;
}

static void use_memory_pool(void) {
  int supported = 0;
  CUmemoryPool pool = 0;
  if (!cu.cuMemAllocAsync || !cu.cuMemFreeAsync || !cu.cuDeviceGetAttribute ||
      !cu.cuDeviceGetDefaultMemPool || !cu.cuMemPoolSetAttribute)
    return;
  if (cu.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device) ||
      !supported || cu.cuDeviceGetDefaultMemPool(&pool, device))
    return;
  /* Keep freed memory in the pool across synchronizations (a caching allocator, as
     PyTorch's): otherwise every call maps its temporaries afresh. */
  uint64_t keep = UINT64_MAX;
  if (cu.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) == 0)
    stream_ordered = true;
}

static bool start_driver(void) {
  int version = 0, major = 0, minor = 0;
  char name[256] = "?";
  if (!open_driver()) return false;
  if (!ok(cu.cuInit(0), "cuInit") || !ok(cu.cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !ok(cu.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !ok(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent"))
    return false;
  cu.cuDriverGetVersion(&version);
  cu.cuDeviceGetName(name, sizeof name, device);
  if (cu.cuDeviceGetAttribute) {
    cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  }
  use_memory_pool();
  snprintf(device_text, sizeof device_text, "%s, sm_%d%d, CUDA driver %d.%d, %s", name, major,
           minor, version / 1000, version % 1000 / 10,
           stream_ordered ? "stream-ordered allocator" : "cuMemAlloc");
  return true;
}

/* Opens the driver, makes device 0's primary context current and loads every kernel; 0 on
   success (also when already started), else -1 with the reason in gradir_cuda_error(). A
   failure is final: later calls return -1 with the same message. */
static char start_error[1024]; /* why starting failed, or why the library cannot run again */

int gradir_cuda_start(void) {
  pthread_mutex_lock(&lock);
  int state = started;
  pthread_mutex_unlock(&lock);
  if (state == 0) {
    bool fine = start_driver();
#ifdef GRADIR_HOST_INIT
    if (fine) {
      gradir_host_init();
      fine = !failed();
    }
#endif
    pthread_mutex_lock(&lock);
    started = fine ? 1 : -1;
    if (!fine) memcpy(start_error, error, sizeof error);
    pthread_mutex_unlock(&lock);
    state = started;
  }
  if (state < 0) {
    pthread_mutex_lock(&lock);
    memcpy(error, start_error, sizeof error);
    pthread_mutex_unlock(&lock);
    return -1;
  }
  return ok(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent") ? 0 : -1; /* this thread may be new */
}

/* Unloads the kernels and releases the context (the library cannot be started again). */
void gradir_cuda_stop(void) {
  if (started != 1) return;
#ifdef GRADIR_HOST_INIT
  gradir_host_deinit();
#endif
  cu.cuDevicePrimaryCtxRelease_v2(device);
  pthread_mutex_lock(&lock);
  snprintf(start_error, sizeof start_error, "the library was stopped (gradir_cuda_stop); load it in a new process");
  started = -1;
  pthread_mutex_unlock(&lock);
}

/* The first failure since the last clear, or NULL. */
const char *gradir_cuda_error(void) { return error[0] ? error : 0; }

void gradir_cuda_clear_error(void) {
  pthread_mutex_lock(&lock);
  error[0] = 0;
  pthread_mutex_unlock(&lock);
}

const char *gradir_cuda_device(void) { return device_text; }

/* Kernel modules loaded so far from their cubin (counts[0]) and from their PTX (counts[1]). */
void gradir_cuda_images(int64_t counts[2]) {
  counts[0] = images[0];
  counts[1] = images[1];
}

/* Why the driver refused a cubin (the first time), or "". */
const char *gradir_cuda_fallback(void) { return fallback; }

/* Kernels launched since the library started. */
uint64_t gradir_cuda_launch_count(void) { return launches; }

/* Launches of each kernel so far: fills up to `capacity` names and counts (kernels never
   launched included) and returns how many kernels there are. */
int64_t gradir_cuda_kernel_launches(int64_t capacity, const char **names, uint64_t *counts) {
  int64_t found = 0;
  for (size_t slot = 0; slot < KERNEL_SLOTS; ++slot) {
    if (!__atomic_load_n(&kernel_table[slot].function, __ATOMIC_ACQUIRE)) continue;
    if (found < capacity) {
      names[found] = kernel_table[slot].name;
      counts[found] = __atomic_load_n(&kernel_table[slot].count, __ATOMIC_RELAXED);
    }
    ++found;
  }
  return found;
}

/* Device memory for the caller's arguments and results (0 on failure). */
uint64_t gradir_cuda_alloc(size_t size) {
  CUdeviceptr pointer = 0;
  if (!ok(cu.cuMemAlloc_v2(&pointer, size ? size : 1), "cuMemAlloc")) return 0;
  return pointer;
}

void gradir_cuda_free(uint64_t pointer) {
  if (pointer) ok(cu.cuMemFree_v2(pointer), "cuMemFree");
}

int gradir_cuda_copy_to_device(uint64_t target, const void *source, size_t size) {
  return size && !ok(cu.cuMemcpyHtoD_v2(target, source, size), "cuMemcpyHtoD") ? -1 : 0;
}

int gradir_cuda_copy_to_host(void *target, uint64_t source, size_t size) {
  return size && !ok(cu.cuMemcpyDtoH_v2(target, source, size), "cuMemcpyDtoH") ? -1 : 0;
}

int gradir_cuda_synchronize(void) { return ok(cu.cuCtxSynchronize(), "cuCtxSynchronize") ? 0 : -1; }

/* ------------------------------------------------------------------ MLIR's mgpu* runtime */

static const char MAGIC[8] = {'G', 'R', 'D', 'X', 'K', 'I', 'M', 'G'};

struct image_header {
  char magic[8];
  uint32_t version;
  uint32_t flags;
  uint64_t cubin_size;
  uint64_t ptx_size; /* without the NUL that follows the PTX */
};

static const char *image_policy(void) {
  const char *policy = getenv("GRADIR_CUDA_IMAGE");
  return policy && *policy ? policy : "auto";
}

void *mgpuModuleLoad(void *data, size_t size) {
  struct image_header header;
  CUmodule module = 0;
  if (size < sizeof header) {
    fail("mgpuModuleLoad: a kernel image of %zu bytes is not gradir's", size);
    return 0;
  }
  memcpy(&header, data, sizeof header);
  if (memcmp(header.magic, MAGIC, sizeof MAGIC) || header.version != 1 ||
      sizeof header + header.cubin_size + header.ptx_size + 1 != size) {
    fail("mgpuModuleLoad: a kernel image that is not gradir's (version 1)");
    return 0;
  }
  const char *cubin = (const char *)data + sizeof header;
  const char *ptx = cubin + header.cubin_size;
  const char *policy = image_policy();
  bool want_ptx = !strcmp(policy, "ptx"), only_cubin = !strcmp(policy, "cubin");
  if (!want_ptx && header.cubin_size) {
    void *aligned = malloc(header.cubin_size); /* the ELF image's own alignment */
    if (!aligned) {
      fail("mgpuModuleLoad: out of host memory");
      return 0;
    }
    memcpy(aligned, cubin, header.cubin_size);
    CUresult status = cu.cuModuleLoadData(&module, aligned);
    free(aligned);
    if (status == 0) {
      __atomic_add_fetch(&images[0], 1, __ATOMIC_RELAXED);
      return module;
    }
    if (only_cubin) {
      ok(status, "cuModuleLoadData (cubin)");
      return 0;
    }
    pthread_mutex_lock(&lock);
    if (!fallback[0])
      snprintf(fallback, sizeof fallback, "cuModuleLoadData refused the cubin: %s (%d)",
               error_name(status), status);
    pthread_mutex_unlock(&lock);
  } else if (only_cubin) {
    fail("GRADIR_CUDA_IMAGE=cubin, but the library holds no cubin (ptxas was not found at export)");
    return 0;
  }
  int options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {(void *)(intptr_t)4};
  if (!ok(cu.cuModuleLoadDataEx(&module, ptx, 1, options, values), "cuModuleLoadDataEx (PTX)"))
    return 0;
  __atomic_add_fetch(&images[1], 1, __ATOMIC_RELAXED);
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module) ok(cu.cuModuleUnload(module), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = 0;
  if (!module) {
    fail("kernel %s: its module was not loaded", name);
    return 0;
  }
  if (!ok(cu.cuModuleGetFunction(&function, module, name), "cuModuleGetFunction")) return 0;
  if (kernel_table[kernel_slot(function) % KERNEL_SLOTS].function != function)
    remember_kernel(function, name);
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t shared_bytes,
                      void *stream, void **params, void **extra, size_t param_count) {
  (void)param_count;
  if (failed() || !function) return; /* an earlier failure: never run on bad buffers */
  __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
  count_launch(function);
  ok(cu.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ, shared_bytes,
                       stream, params, extra),
     "cuLaunchKernel");
}

/* One stream per thread, created once: each call synchronizes it before returning, so
   reusing it is safe, and a call saves a stream creation and destruction. A blocking stream
   (not CU_STREAM_NON_BLOCKING, as MLIR's runtime makes): the arguments' copies
   (cuMemcpyHtoD, on the legacy default stream) may still be in flight when the call starts,
   and only a blocking stream waits for them. */
void *mgpuStreamCreate(void) {
  if (!thread_stream) ok(cu.cuStreamCreate(&thread_stream, CU_STREAM_DEFAULT), "cuStreamCreate");
  return thread_stream;
}

void mgpuStreamSynchronize(void *stream) { ok(cu.cuStreamSynchronize(stream), "cuStreamSynchronize"); }

void mgpuStreamDestroy(void *stream) { (void)stream; }

void *mgpuMemAlloc(uint64_t size, void *stream, bool host_shared) {
  CUdeviceptr pointer = 0;
  (void)host_shared;
  if (failed()) return 0;
  if (stream_ordered)
    ok(cu.cuMemAllocAsync(&pointer, size ? size : 1, stream), "cuMemAllocAsync");
  else
    ok(cu.cuMemAlloc_v2(&pointer, size ? size : 1), "cuMemAlloc");
  return (void *)(uintptr_t)pointer;
}

void mgpuMemFree(void *pointer, void *stream) {
  if (!pointer) return;
  if (stream_ordered)
    ok(cu.cuMemFreeAsync((CUdeviceptr)(uintptr_t)pointer, stream), "cuMemFreeAsync");
  else
    ok(cu.cuMemFree_v2((CUdeviceptr)(uintptr_t)pointer), "cuMemFree");
}

void mgpuMemcpy(void *target, void *source, size_t size, void *stream) {
  if (failed()) return;
  ok(cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)target, (CUdeviceptr)(uintptr_t)source, size, stream),
     "cuMemcpyAsync");
}
