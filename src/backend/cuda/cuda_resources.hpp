// Owning wrappers of CUDA objects (device and pinned buffers, streams, events, cuBLAS handles)
// and the scope that makes a device current and restores the caller's on exit. Destructors
// never throw: releasing a resource after a failure must not hide the failure.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "backend/cuda/cuda_check.hpp"

namespace fc {
namespace cuda {

// Makes `device` current for its lifetime and restores the caller's current device after, so
// that no entry point changes the device the caller works on.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    FC_CUDA(cudaGetDevice(&previous_));
    if (previous_ != device) {
      FC_CUDA(cudaSetDevice(device));
      switched_ = true;
    }
  }
  ~DeviceScope() {
    if (switched_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

// cudaMalloc'd bytes on one device. allocate() reports failure instead of throwing so that the
// planner can retry with smaller tiles.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    DeviceBuffer(std::move(o)).swap(*this);
    return *this;
  }

  // false (error cleared) when the device is out of memory; throws on any other failure.
  bool try_allocate(int device, size_t bytes) {
    release();
    if (bytes == 0) return true;
    const cudaError_t status = cudaMalloc(&ptr_, bytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      ptr_ = nullptr;
      return false;
    }
    check_cuda(status, "cudaMalloc");
    device_ = device;
    bytes_ = bytes;
    return true;
  }
  void allocate(int device, size_t bytes, const char* what) {
    if (!try_allocate(device, bytes))
      fail(FC_ERR_OUT_OF_MEMORY, std::string("cudaMalloc of ") + std::to_string(bytes) + " bytes for " + what +
                                     " failed: the device is out of memory");
  }
  void release() noexcept {
    if (ptr_ != nullptr) {
      int current = -1;
      cudaGetDevice(&current);
      if (current != device_) cudaSetDevice(device_);
      cudaFree(ptr_);
      if (current != device_ && current >= 0) cudaSetDevice(current);
    }
    ptr_ = nullptr;
    bytes_ = 0;
  }

  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    std::swap(device_, o.device_);
  }
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  int device_ = 0;
};

// Page-locked host memory (cudaHostAlloc): the staging ring of pageable outputs; mapped, also
// the target of kernels' stores (kernels/host_store.cuh), at device().
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void allocate(size_t bytes, bool mapped = false) {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
    ptr_ = device_ = nullptr;
    bytes_ = 0;
    const unsigned flags = mapped ? cudaHostAllocMapped | cudaHostAllocPortable : cudaHostAllocDefault;
    cudaError_t status = cudaHostAlloc(&ptr_, bytes, flags);
    if (status == cudaSuccess && mapped) status = cudaHostGetDevicePointer(&device_, ptr_, 0);
    if (status != cudaSuccess) {
      if (ptr_ != nullptr) cudaFreeHost(ptr_);
      ptr_ = device_ = nullptr;
      cudaGetLastError();
      fail(FC_ERR_OUT_OF_MEMORY, "cudaHostAlloc of " + std::to_string(bytes) + " pinned bytes" +
                                     (mapped ? " (mapped)" : "") + " failed: " + cudaGetErrorString(status));
    }
    bytes_ = bytes;
  }
  char* get() const { return static_cast<char*>(ptr_); }
  void* device() const { return device_; }  // mapped only
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  void* device_ = nullptr;
  size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { FC_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  // A stream of the given priority (lower numbers first; cudaDeviceGetStreamPriorityRange).
  explicit Stream(int priority) { FC_CUDA(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority)); }
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { FC_CUDA(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    FC_CUBLAS(cublasCreate(&handle_));
    const cublasStatus_t status = cublasSetStream(handle_, stream);
    if (status != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(handle_);
      check_cublas(status, "cublasSetStream");
    }
  }
  ~CublasHandle() {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace cuda
}  // namespace fc
