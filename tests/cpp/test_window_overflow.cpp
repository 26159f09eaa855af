// The all-windows calls refuse output sizes past int64_t by name (issue 35): W x P values of
// fc_dfc_triu, W x N of fc_dfc_degree, W x N x rank of fc_dfc_lowrank. No machine can upload a
// series set that big (a real one stops below 2^31 series), so a series of 3 is uploaded and its
// handle then made to claim billions of series: the size checks come before any of its rows is
// read. Unchecked, each product wraps to a positive size and the call goes on (to a short-buffer
// error at best). The one internal header: the handle's definition.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "api_calls.hpp"
#include "api/handles.hpp"

namespace {

using namespace fctest;

// A 3-series upload whose handle claims `n` series while alive.
class ClaimedSize {
 public:
  ClaimedSize(const Series& s, int64_t n) : data_(*s.get()->data), saved_(data_.n) { data_.n = n; }
  ~ClaimedSize() { data_.n = saved_; }

 private:
  fc::SeriesData& data_;
  int64_t saved_;
};

struct Upload {
  Context ctx{FC_BACKEND_CPU};
  Series s = make_series(ctx, structured_data(3, 5, 35));  // 5 samples: 4 windows of 2, step 1
};

TEST(WindowOverflow, WindowsTimesPairs) {
  const Upload u;
  ASSERT_EQ(fc_window_count(5, 2, 1), 4);
  // P = n (n - 1) / 2 = 6,124,999,998,250,000,000 fits; 4 P does not (it wraps to about 6.05e18).
  const int64_t n = 3500000000;
  float out = 0.0f;
  fc_status status;
  std::string error;
  {
    const ClaimedSize claim(u.s, n);
    status = fc_dfc_triu(u.ctx.get(), u.s.get(), 2, 1, FC_TAPER_RECTANGULAR, 0.0, FC_TRIU_ROW, &out, 1);
    error = fc_last_error();
  }
  EXPECT_EQ(status, FC_ERR_INVALID_ARG) << error;
  EXPECT_NE(error.find("windows x pairs (4 x 6124999998250000000) overflows int64_t"), std::string::npos) << error;
  EXPECT_EQ(out, 0.0f);
}

TEST(WindowOverflow, WindowsTimesSeries) {
  const Upload u;
  const int64_t n = int64_t(1) << 62;  // 4 n = 2^64
  fc_status status;
  std::string error;
  {
    const ClaimedSize claim(u.s, n);
    status = fc_dfc_degree(u.ctx.get(), u.s.get(), 2, 1, FC_TAPER_RECTANGULAR, 0.0, FC_EDGE_ABS_THRESHOLD, 0.5, nullptr, nullptr);
    error = fc_last_error();
  }
  EXPECT_EQ(status, FC_ERR_INVALID_ARG) << error;
  EXPECT_NE(error.find("windows x series (4 x 4611686018427387904) overflows int64_t"), std::string::npos) << error;
}

TEST(WindowOverflow, WindowsTimesSeriesTimesRank) {
  const Upload u;
  const int64_t n = int64_t(1) << 61;  // n x rank 2 = 2^62 fits; 4 windows x 2^62 does not
  float factors = 0.0f;
  fc_status status;
  std::string error;
  {
    const ClaimedSize claim(u.s, n);
    status = fc_dfc_lowrank(u.ctx.get(), u.s.get(), 2, 1, FC_TAPER_RECTANGULAR, 0.0, 2, &factors, 1, nullptr);
    error = fc_last_error();
  }
  EXPECT_EQ(status, FC_ERR_INVALID_ARG) << error;
  EXPECT_NE(error.find("windows x series x rank (4 x 4611686018427387904) overflows int64_t"), std::string::npos) << error;
  EXPECT_EQ(factors, 0.0f);
}

}  // namespace
