/* run_npy.c: calls a library made by kiln-compile on .npy files.
 *
 *   kiln-compile prog.mlir -o libprog.so --header prog.h --name prog
 *   cc -DKILN_PREFIX=prog -include prog.h run_npy.c -L. -lprog -Wl,-rpath,'$ORIGIN' -o run
 *   ./run in0.npy in1.npy ... out_dir      (writes out_dir/out<i>.npy)
 *
 * A deployment needs the library, libKilnRuntimeCpu.so (or ...Gpu.so) beside
 * it, and no LLVM or MLIR. The signature is read from the library itself
 * (NAME_num_inputs, NAME_shape, NAME_dtype), so this program works for any
 * kiln-compile output; it checks each input's dtype and shape against it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KILN_PREFIX
#error "compile with -DKILN_PREFIX=<the --name given to kiln-compile>"
#endif
#define KILN_CAT2(a, b) a##_##b
#define KILN_CAT(a, b) KILN_CAT2(a, b)
#define KILN(fn) KILN_CAT(KILN_PREFIX, fn)

/* numpy's descr of Kiln's dtype names (JAX's short names). */
static const char *descr_of(const char *dtype, size_t *bytes) {
  static const struct { const char *name, *descr; size_t bytes; } table[] = {
      {"f32", "<f4", 4}, {"f64", "<f8", 8}, {"f16", "<f2", 2}, {"bf16", "<V2", 2},
      {"i8", "|i1", 1},  {"i16", "<i2", 2}, {"i32", "<i4", 4}, {"i64", "<i8", 8},
      {"u8", "|u1", 1},  {"u16", "<u2", 2}, {"u32", "<u4", 4}, {"u64", "<u8", 8},
      {"bool", "|b1", 1}};
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i)
    if (!strcmp(table[i].name, dtype)) {
      *bytes = table[i].bytes;
      return table[i].descr;
    }
  return NULL;
}

static size_t element_count(int index) {
  size_t n = 1;
  for (int d = 0; d < KILN(rank)(index); ++d)
    n *= (size_t)KILN(shape)(index)[d];
  return n;
}

/* The shape of buffer `index` as numpy prints it: "(2, 3)", "(4,)", "()". */
static void shape_text(int index, char *out, size_t size) {
  int rank = KILN(rank)(index);
  size_t used = (size_t)snprintf(out, size, "(");
  for (int d = 0; d < rank; ++d)
    used += (size_t)snprintf(out + used, size - used, "%lld%s",
                             (long long)KILN(shape)(index)[d], rank == 1 ? "," : d + 1 < rank ? ", " : "");
  snprintf(out + used, size - used, ")");
}

static int fail(const char *what, const char *path) {
  fprintf(stderr, "run_npy: error: %s: %s\n", path, what);
  return 1;
}

/* Reads an .npy file (version 1 or 2, C order) into a new buffer of the
 * signature's dtype and shape for input `index`. */
static int read_npy(const char *path, int index, void **data) {
  size_t bytes = 0;
  const char *want = descr_of(KILN(dtype)(index), &bytes);
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail("cannot open", path);
  unsigned char magic[10];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6)) {
    fclose(f);
    return fail("not an .npy file", path);
  }
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char h[2];
    if (fread(h, 1, 2, f) != 2) { fclose(f); return fail("truncated header", path); }
    header_len = h[0] | (h[1] << 8);
  } else {
    unsigned char h[4];
    if (fread(h, 1, 4, f) != 4) { fclose(f); return fail("truncated header", path); }
    header_len = h[0] | (h[1] << 8) | (h[2] << 16) | ((uint32_t)h[3] << 24);
  }
  char *header = calloc(header_len + 1, 1);
  if (fread(header, 1, header_len, f) != header_len) {
    free(header);
    fclose(f);
    return fail("truncated header", path);
  }
  char expect[160], shape[96];
  shape_text(index, shape, sizeof(shape));
  snprintf(expect, sizeof(expect), "'descr': '%s'", want);
  int ok = strstr(header, expect) != NULL && strstr(header, "'fortran_order': False") != NULL;
  snprintf(expect, sizeof(expect), "'shape': %s", shape);
  ok = ok && strstr(header, expect) != NULL;
  free(header);
  if (!ok) {
    fclose(f);
    fprintf(stderr, "run_npy: error: %s: expected a C-order %s array of shape %s (input %d)\n",
            path, KILN(dtype)(index), shape, index);
    return 1;
  }
  size_t n = element_count(index) * bytes;
  *data = malloc(n ? n : 1);
  if (fread(*data, 1, n, f) != n) {
    fclose(f);
    return fail("truncated data", path);
  }
  fclose(f);
  return 0;
}

static int write_npy(const char *path, int index, const void *data) {
  size_t bytes = 0;
  const char *descr = descr_of(KILN(dtype)(index), &bytes);
  char shape[96], header[256];
  shape_text(index, shape, sizeof(shape));
  int len = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
  int total = 10 + len + 1;
  int pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail("cannot write", path);
  uint16_t hl = (uint16_t)(len + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc(hl & 0xff, f);
  fputc(hl >> 8, f);
  fwrite(header, 1, (size_t)len, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  fwrite(data, 1, element_count(index) * bytes, f);
  return fclose(f) ? fail("cannot write", path) : 0;
}

int main(int argc, char **argv) {
  int nin = KILN(num_inputs)(), nout = KILN(num_outputs)();
  if (argc != nin + 2) {
    fprintf(stderr, "usage: %s IN0.npy ... IN%d.npy OUT_DIR (%s: %d inputs)\n", argv[0], nin - 1,
            KILN(target)(), nin);
    return 2;
  }
  void **buffers = calloc((size_t)(nin + nout), sizeof(void *));
  for (int i = 0; i < nin; ++i)
    if (read_npy(argv[1 + i], i, &buffers[i]))
      return 1;
  for (int i = 0; i < nout; ++i) {
    size_t bytes = 0;
    descr_of(KILN(dtype)(nin + i), &bytes);
    size_t n = element_count(nin + i) * bytes;
    buffers[nin + i] = calloc(n ? n : 1, 1);
  }
  if (KILN(call_host)(buffers)) {
    fprintf(stderr, "run_npy: error: the call failed: %s\n", KILN(error)());
    return 1;
  }
  for (int i = 0; i < nout; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/out%d.npy", argv[1 + nin], i);
    if (write_npy(path, nin + i, buffers[nin + i]))
      return 1;
  }
  return 0;
}
