// The bare baseline of the GPU benchmarks: cuBLAS alone over the backend's row-order bands of the
// whole triangle (band_plan.hpp, tiles of `tile_values` values), one SGEMM per band on two
// streams as the backend runs them, on the normalized rows of the same data. once() returns the
// seconds of one pass over the triangle.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "backend/cuda/band_plan.hpp"
#include "bench_data.hpp"
#include "bench_util.hpp"

namespace fcbench {

class GemmAlone {
 public:
  GemmAlone(const std::vector<float>& x, int64_t n, int64_t t, int64_t tile_values) : t_(t) {
    const std::vector<float> zh = normalized_rows(x, n, t);
    cuda_ok(cudaMalloc(reinterpret_cast<void**>(&z_), zh.size() * 4), "cudaMalloc z");
    cuda_ok(cudaMemcpy(z_, zh.data(), zh.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy z");
    for (int64_t q = 0; q < n - 1;) {
      bands_.push_back(fc::cuda::next_triu_band(n, FC_TRIU_ROW, q, n - 1, 0, tile_values));
      q = bands_.back().q1;
    }
    for (int k = 0; k < 2; ++k) {
      cuda_ok(cudaStreamCreateWithFlags(&st_[k], cudaStreamNonBlocking), "cudaStreamCreate");
      if (cublasCreate(&h_[k]) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h_[k], st_[k]) != CUBLAS_STATUS_SUCCESS) die("cublas");
      cuda_ok(cudaMalloc(reinterpret_cast<void**>(&tile_[k]), static_cast<size_t>(tile_values) * 4), "cudaMalloc tile");
    }
  }
  GemmAlone(const GemmAlone&) = delete;
  GemmAlone& operator=(const GemmAlone&) = delete;
  ~GemmAlone() {
    for (int k = 0; k < 2; ++k) {
      cudaFree(tile_[k]);
      cublasDestroy(h_[k]);
      cudaStreamDestroy(st_[k]);
    }
    cudaFree(z_);
  }
  double once() {
    cuda_ok(cudaDeviceSynchronize(), "sync");
    const double t0 = now();
    for (size_t k = 0; k < bands_.size(); ++k) {
      const auto& b = bands_[k];
      const float one = 1, zero = 0;
      if (cublasSgemm(h_[k % 2], CUBLAS_OP_T, CUBLAS_OP_N, int(b.ld), int(b.q1 - b.q0), int(t_), &one, z_ + b.p0 * t_,
                      int(t_), z_ + b.q0 * t_, int(t_), &zero, tile_[k % 2], int(b.ld)) != CUBLAS_STATUS_SUCCESS)
        die("cublasSgemm");
    }
    cuda_ok(cudaDeviceSynchronize(), "sync");
    return now() - t0;
  }
  double tflops(double seconds) const {
    double flops = 0;
    for (const auto& b : bands_) flops += 2.0 * double(b.ld) * double(b.q1 - b.q0) * double(t_);
    return flops / seconds / 1e12;
  }
  size_t bands() const { return bands_.size(); }

 private:
  int64_t t_;
  float* z_ = nullptr;
  std::vector<fc::cuda::TriuBand> bands_;
  cudaStream_t st_[2];
  cublasHandle_t h_[2];
  float* tile_[2];
};

}  // namespace fcbench
