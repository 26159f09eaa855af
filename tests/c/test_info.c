/* test_info.c - what needs no computation: fc_version against the header's macros, a name for
 * every status, *_destroy(NULL), fc_has_cuda and what fastconn_cuda.h's functions say in either
 * build, fc_last_error before and after a failure. */
#include "check.h"
#include "fastconn/fastconn_cuda.h"

static void test_version(void) {
  int major = -1, minor = -1, patch = -1;
  fc_version(&major, &minor, &patch);
  CHECK(major == FASTCONN_VERSION_MAJOR);
  CHECK(minor == FASTCONN_VERSION_MINOR);
  CHECK(patch == FASTCONN_VERSION_PATCH);
  CHECK(FASTCONN_VERSION_NUMBER == major * 10000 + minor * 100 + patch);
  {
    char text[64];
    sprintf(text, "%d.%d.%d", major, minor, patch);
    CHECK(strcmp(text, FASTCONN_VERSION_STRING) == 0);
  }
  /* any pointer may be NULL */
  fc_version(NULL, NULL, NULL);
  major = -1;
  fc_version(&major, NULL, NULL);
  CHECK(major == FASTCONN_VERSION_MAJOR);
}

/* Every status has its own static name that starts with the enum constant's spelling. */
static void test_status_strings(void) {
  static const struct { fc_status status; const char* name; } all[] = {
      {FC_OK, "FC_OK"},
      {FC_DONE, "FC_DONE"},
      {FC_ERR_CUDA, "FC_ERR_CUDA"},
      {FC_ERR_OUT_OF_MEMORY, "FC_ERR_OUT_OF_MEMORY"},
      {FC_ERR_BACKEND_UNAVAILABLE, "FC_ERR_BACKEND_UNAVAILABLE"},
      {FC_ERR_IO, "FC_ERR_IO"},
      {FC_ERR_NULL_ARG, "FC_ERR_NULL_ARG"},
      {FC_ERR_INVALID_ARG, "FC_ERR_INVALID_ARG"},
      {FC_ERR_BUFFER_TOO_SMALL, "FC_ERR_BUFFER_TOO_SMALL"},
      {FC_ERR_NONFINITE_INPUT, "FC_ERR_NONFINITE_INPUT"},
      {FC_ERR_ABORTED, "FC_ERR_ABORTED"},
      {FC_ERR_BAD_STATE, "FC_ERR_BAD_STATE"},
      {FC_ERR_INTERNAL, "FC_ERR_INTERNAL"},
  };
  const size_t count = sizeof all / sizeof all[0];
  size_t a, b;
  const char* unknown = fc_status_string((fc_status)12345);
  CHECK(unknown != NULL);
  for (a = 0; a < count; ++a) {
    const char* text = fc_status_string(all[a].status);
    const size_t len = strlen(all[a].name);
    CHECK(text != NULL);
    if (text == NULL) continue;
    /* the name, then the end or a non-identifier character ("FC_ERR_IO" is not "FC_ERR_IO_X") */
    if (strncmp(text, all[a].name, len) != 0 || (text[len] != '\0' && text[len] != ':')) {
      ++check_failures;
      fprintf(stderr, "fc_status_string(%d) = \"%s\" does not start with %s\n", (int)all[a].status, text,
              all[a].name);
    }
    CHECK(strcmp(text, unknown) != 0);
    for (b = 0; b < a; ++b) CHECK(strcmp(text, fc_status_string(all[b].status)) != 0);
  }
  /* the documented ranges: success below 100, errors from 100 */
  for (a = 0; a < count; ++a) CHECK((all[a].status >= 100) == (strncmp(all[a].name, "FC_ERR_", 7) == 0));
}

static void test_destroy_null(void) {
  /* documented to accept NULL, like free(): reaching the next line is the test */
  fc_context_destroy(NULL);
  fc_series_destroy(NULL);
  fc_blocks_destroy(NULL);
  CHECK(1);
}

static void test_last_error_is_thread_text(void) {
  fc_context* ctx = NULL;
  CHECK(fc_last_error() != NULL);
  CHECK_STATUS(fc_context_create((fc_backend)7, -1, &ctx), FC_ERR_INVALID_ARG);
  CHECK(ctx == NULL); /* nothing written on failure */
  CHECK_ERROR_MENTIONS("fc_context_create");
  CHECK_ERROR_MENTIONS("7");
}

/* fastconn_cuda.h's functions exist in every build (this program links them): on a CPU context
 * they refuse with FC_ERR_INVALID_ARG where CUDA is built in, FC_ERR_BACKEND_UNAVAILABLE where it
 * is not; NULL arguments come first in both. */
static void test_has_cuda(void) {
  const int has = fc_has_cuda();
  const fc_status refused = has ? FC_ERR_INVALID_ARG : FC_ERR_BACKEND_UNAVAILABLE;
  fc_context* ctx = NULL;
  int device = -7;
  struct CUstream_st* stream = (struct CUstream_st*)&device;
  CHECK(has == 0 || has == 1);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  CHECK_STATUS(fc_context_get_cuda_device(NULL, &device), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_get_cuda_device(ctx, &device), refused);
  if (has) CHECK_ERROR_MENTIONS("FC_BACKEND_CUDA");
  else CHECK_ERROR_MENTIONS("built without CUDA");
  CHECK(device == -7);
  CHECK_STATUS(fc_context_set_cuda_stream(ctx, NULL), refused);
  CHECK_STATUS(fc_context_get_cuda_stream(ctx, &stream), refused);
  CHECK(stream == (struct CUstream_st*)&device);
  fc_context_destroy(ctx);
}

/* fc_context_create_cuda_devices checks its arguments in every build (naming the bad value), then
 * needs CUDA: FC_ERR_BACKEND_UNAVAILABLE without it (or without a device). */
static void test_cuda_devices(void) {
  const int has = fc_has_cuda();
  const int twice[2] = {0, 0}, negative[2] = {1, -2}, first[1] = {0};
  int ids[4] = {-7, -7, -7, -7}, n = -7;
  fc_context* ctx = NULL;
  fc_status st;
  CHECK_STATUS(fc_context_create_cuda_devices(NULL, 0, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_create_cuda_devices(NULL, -1, &ctx), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("n_devices is -1");
  CHECK_STATUS(fc_context_create_cuda_devices(NULL, 2, &ctx), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("devices");
  CHECK_STATUS(fc_context_create_cuda_devices(twice, 2, &ctx), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("devices[1] is 0, which devices lists twice");
  CHECK_STATUS(fc_context_create_cuda_devices(negative, 2, &ctx), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("devices[1] is -2");
  CHECK(ctx == NULL);
  st = fc_context_create_cuda_devices(first, 1, &ctx);
  if (!has) {
    CHECK_STATUS(st, FC_ERR_BACKEND_UNAVAILABLE);
    CHECK_ERROR_MENTIONS("built without CUDA");
  } else {
    CHECK(st == FC_OK || st == FC_ERR_BACKEND_UNAVAILABLE);
  }
  fc_context_destroy(ctx);
  ctx = NULL;
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  CHECK_STATUS(fc_context_get_cuda_devices(NULL, ids, 4, &n), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_get_cuda_devices(ctx, ids, 4, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_get_cuda_devices(ctx, ids, 4, &n), has ? FC_ERR_INVALID_ARG : FC_ERR_BACKEND_UNAVAILABLE);
  CHECK(ids[0] == -7);
  fc_context_destroy(ctx);
}

/* fc_cpu_info: one static line naming the pair-kernel path and the BLAS; under
 * FASTCONN_CPU_ISA=portable (the c_info_portable run) the path is the portable one. */
static void test_cpu_info(void) {
  const char* info = fc_cpu_info();
  const char* forced = getenv("FASTCONN_CPU_ISA");
  CHECK(info != NULL);
  CHECK(strncmp(info, "pair kernels: ", 14) == 0);
  CHECK(strstr(info, "(this CPU: ") != NULL);
  CHECK(strstr(info, "BLAS: ") != NULL);
  CHECK(fc_cpu_info() == info); /* static: the same text every call */
  if (forced != NULL && strcmp(forced, "portable") == 0) CHECK(strncmp(info, "pair kernels: portable (", 24) == 0);
}

int main(void) {
  test_cpu_info();
  test_version();
  test_status_strings();
  test_destroy_null();
  test_last_error_is_thread_text();
  test_has_cuda();
  test_cuda_devices();
  return check_report();
}
