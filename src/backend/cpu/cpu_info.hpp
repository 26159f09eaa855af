// The CPU backend's line for fc_cpu_info: its pair-kernel path and the BLAS library's kernel.
#pragma once

#include <string>

namespace fc {
namespace cpu {

std::string cpu_info();

}  // namespace cpu
}  // namespace fc
