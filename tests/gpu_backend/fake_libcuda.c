/* A stand-in for libcuda.so.1 that records what an exported library's runtime asks of it
   (tests/gpu_backend/test_cuda_export.py loads it with GRADIR_CUDA_DRIVER=path).

   "Device" memory is host memory; copies copy; kernels are not run, their launches are
   recorded. fake_log() returns the record, one call per line:
     load cubin|ptx SIZE SHA  (module loads: the image's kind and an FNV-1a hash of its bytes)
     function NAME | launch NAME gx gy gz bx by bz smem | alloc SIZE | free | unload | sync
     htod SIZE SHA (a copy to the device, the hash of what it copies) | dtoh SIZE
   FAKE_CUDA_NO_DEVICE=1 makes cuInit fail (CUDA_ERROR_NO_DEVICE); FAKE_CUDA_REFUSE_CUBIN=1
   refuses cubins (CUDA_ERROR_NO_BINARY_FOR_GPU), as a driver older than the ptxas would;
   FAKE_CUDA_FAIL_ALLOC=N fails the N-th cuMemAlloc (CUDA_ERROR_OUT_OF_MEMORY); FAKE_CUDA_POOLS=1
   says the device has memory pools (cuMemAllocAsync/cuMemFreeAsync, logged "alloc async",
   "free async"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static char log_text[1 << 20];
static size_t log_used;
static int allocations;
static char functions[4096][128]; /* interned kernel names: the handles */
static int function_count;

static void record(const char *format, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void record(const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  int written = vsnprintf(log_text + log_used, sizeof log_text - log_used, format, arguments);
  va_end(arguments);
  if (written > 0 && log_used + written < sizeof log_text) log_used += written;
}

const char *fake_log(void) { return log_text; }
void fake_clear(void) { log_used = 0; log_text[0] = 0; }

static uint64_t fnv(const unsigned char *data, size_t size) {
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < size; i++) hash = (hash ^ data[i]) * 1099511628211ull;
  return hash;
}

static int flag(const char *name) {
  const char *value = getenv(name);
  return value && *value && strcmp(value, "0");
}

CUresult cuInit(unsigned flags) { (void)flags; return flag("FAKE_CUDA_NO_DEVICE") ? 100 : 0; }
CUresult cuDriverGetVersion(int *version) { *version = 12040; return 0; }
CUresult cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
CUresult cuDeviceGetName(char *name, int size, int device) {
  (void)device;
  snprintf(name, size, "Fake GPU");
  return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  /* compute capability 9.0; memory pools with FAKE_CUDA_POOLS=1 */
  *value = attribute == 75 ? 9 : attribute == 115 ? flag("FAKE_CUDA_POOLS") : 0;
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) { (void)device; *context = (void *)0xc0; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int device) { (void)device; record("release\n"); return 0; }
CUresult cuCtxSetCurrent(void *context) { (void)context; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }

static int module_count;
static CUresult load(void **module, const void *image) {
  const unsigned char *bytes = image;
  int is_cubin = !memcmp(bytes, "\x7f" "ELF", 4);
  if (is_cubin && flag("FAKE_CUDA_REFUSE_CUBIN")) return 209;
  size_t size;
  if (is_cubin) { /* an ELF64 image: it ends with its section or its program headers */
    uint64_t phoff, shoff;
    uint16_t phentsize, phnum, shentsize, shnum;
    memcpy(&phoff, bytes + 0x20, 8);
    memcpy(&shoff, bytes + 0x28, 8);
    memcpy(&phentsize, bytes + 0x36, 2);
    memcpy(&phnum, bytes + 0x38, 2);
    memcpy(&shentsize, bytes + 0x3a, 2);
    memcpy(&shnum, bytes + 0x3c, 2);
    size = shoff + (uint64_t)shentsize * shnum;
    if (phoff + (uint64_t)phentsize * phnum > size) size = phoff + (uint64_t)phentsize * phnum;
  } else {
    size = strlen(image);
  }
  record("load %s %zu %016llx\n", is_cubin ? "cubin" : "ptx", size,
         (unsigned long long)fnv(bytes, size));
  *module = (void *)(uintptr_t)(0x1000 + ++module_count);
  return 0;
}
CUresult cuModuleLoadData(void **module, const void *image) { return load(module, image); }
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values) {
  (void)n; (void)options; (void)values;
  return load(module, image);
}
CUresult cuModuleUnload(void *module) { (void)module; record("unload\n"); return 0; }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  int found = 0;
  while (found < function_count && strcmp(functions[found], name)) found++;
  if (found == 4096) return 1;
  if (found == function_count) snprintf(functions[function_count++], sizeof functions[0], "%s", name);
  *function = functions[found];
  record("function %s\n", name);
  return 0;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, void *stream, void **params,
                        void **extra) {
  (void)stream; (void)params; (void)extra;
  record("launch %s %u %u %u %u %u %u %u\n", (const char *)function, gx, gy, gz, bx, by, bz, smem);
  return 0;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  record("stream %u\n", flags);
  *stream = (void *)0x5;
  return 0;
}
CUresult cuStreamSynchronize(void *stream) { (void)stream; record("sync\n"); return 0; }
CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t size) {
  const char *fail = getenv("FAKE_CUDA_FAIL_ALLOC");
  ++allocations;
  if (fail && atoi(fail) == allocations) return 2;
  *pointer = (uintptr_t)calloc(1, size);
  record("alloc %zu\n", size);
  return 0;
}
CUresult cuMemFree_v2(unsigned long long pointer) { free((void *)(uintptr_t)pointer); record("free\n"); return 0; }
CUresult cuDeviceGetDefaultMemPool(void **pool, int device) { (void)device; *pool = (void *)0x9; return 0; }
CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
  (void)pool;
  record("pool attribute %d %llx\n", attribute, *(unsigned long long *)value);
  return 0;
}
CUresult cuMemAllocAsync(unsigned long long *pointer, size_t size, void *stream) {
  (void)stream;
  *pointer = (uintptr_t)calloc(1, size);
  record("alloc async %zu\n", size);
  return 0;
}
CUresult cuMemFreeAsync(unsigned long long pointer, void *stream) {
  (void)stream;
  free((void *)(uintptr_t)pointer);
  record("free async\n");
  return 0;
}
CUresult cuMemcpyHtoD_v2(unsigned long long target, const void *source, size_t size) {
  memcpy((void *)(uintptr_t)target, source, size);
  record("htod %zu %016llx\n", size, (unsigned long long)fnv(source, size));
  return 0;
}
CUresult cuMemcpyDtoH_v2(void *target, unsigned long long source, size_t size) {
  memcpy(target, (void *)(uintptr_t)source, size);
  record("dtoh %zu\n", size);
  return 0;
}
CUresult cuMemcpyAsync(unsigned long long target, unsigned long long source, size_t size, void *stream) {
  (void)stream;
  memcpy((void *)(uintptr_t)target, (void *)(uintptr_t)source, size);
  return 0;
}
CUresult cuGetErrorName(CUresult status, const char **name) {
  switch (status) {
  case 2: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
  case 100: *name = "CUDA_ERROR_NO_DEVICE"; break;
  case 209: *name = "CUDA_ERROR_NO_BINARY_FOR_GPU"; break;
  default: *name = "CUDA_ERROR_UNKNOWN";
  }
  return 0;
}
