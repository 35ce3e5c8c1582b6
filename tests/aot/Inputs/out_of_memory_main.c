/* Calls the library of tests/tools/out-of-memory.mlir (a 1 TiB temporary):
 * the call must fail with its reason, not crash. */
#include <stdio.h>
#include <stdlib.h>
#include "oom.h"
int main(void) {
  float *x = calloc(1048576, sizeof(float));
  float r = 0;
  void *buffers[2] = {x, &r};
  int rc = oom_call(buffers);
  printf("rc=%d error=%s\n", rc, oom_error() ? oom_error() : "(none)");
  free(x);
  return 0;
}
